/**
 * tree-sitter's bash grammar (the one editors use), running as WebAssembly: no native build. It
 * reads every line, broken ones included: a tree with an error in it is still a tree.
 */
import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";
import { Language, Parser, type Tree } from "web-tree-sitter";

// V8 would compile the grammar's WebAssembly a second time, optimised, on background threads as the
// parser warms up: tens of ms of CPU in every one of a run's first turns, and a slower fork for the
// bash call after it. A command line parses in microseconds either way: keep the baseline compiler.
setFlagsFromString("--liftoff-only");
// the grammar loads once, when this module is first imported (about 20 ms)
await Parser.init();
const bash = await Language.load(createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
const parser = new Parser();
parser.setLanguage(bash);

/**
 * The syntax tree of `script`, or null when the parser gives up. The tree lives in WebAssembly
 * memory, not the JavaScript heap: the caller deletes it (`tree.delete()`).
 */
export function parseBash(script: string): Tree | null {
  return parser.parse(script);
}
