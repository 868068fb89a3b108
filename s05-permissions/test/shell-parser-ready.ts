/** Setup for every test file of this chapter: the shell grammar is loaded before a test decides a command. */
import { shellParserReady } from "../src/shell/bash-parser.ts";

await shellParserReady();
