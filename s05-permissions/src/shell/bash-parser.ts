/**
 * tree-sitter's bash grammar (the one editors use), running as WebAssembly: no native build. It
 * reads every line, broken ones included: a tree with an error in it is still a tree.
 *
 * The grammar starts loading when this module is imported and is ready in about 100 ms; nothing
 * waits for it but a decision. The first request goes out meanwhile, and the permission check
 * awaits `shellParserReady()` before it reads a command.
 */
import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";
import type { Parser, Tree } from "web-tree-sitter";

let parser: Parser | undefined;
const loading = loadParser();

async function loadParser(): Promise<void> {
  const { Language, Parser } = await import("web-tree-sitter");
  // V8 would compile the grammar's WebAssembly a second time, optimised, on background threads as
  // the parser warms up: tens of ms of CPU in every one of a run's first turns, and a slower fork
  // for the bash call after it. A command line parses in microseconds either way: keep the baseline.
  setFlagsFromString("--liftoff-only");
  await Parser.init();
  const bash = await Language.load(createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
  const loaded = new Parser();
  loaded.setLanguage(bash);
  parser = loaded;
}

/** Resolves once `parseBash` can run. Contract: whatever reads a command awaits it first. */
export function shellParserReady(): Promise<void> {
  return loading;
}

/**
 * The syntax tree of `script`, or null when the parser gives up. The tree lives in WebAssembly
 * memory, not the JavaScript heap: the caller deletes it (`tree.delete()`).
 * Contract: throws when called before `shellParserReady()` resolved (a bug: nothing is decided unread).
 */
export function parseBash(script: string): Tree | null {
  if (!parser) throw new Error("the shell parser is still loading: await shellParserReady() first");
  return parser.parse(script);
}
