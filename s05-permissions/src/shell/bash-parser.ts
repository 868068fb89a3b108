/**
 * tree-sitter's bash grammar (the one editors use), running as WebAssembly: no native build. It
 * reads every line, broken ones included: a tree with an error in it is still a tree.
 *
 * The grammar starts loading when this module is imported and is ready in about 40 ms; nothing
 * waits for it but a decision. The first request goes out meanwhile, and the permission check
 * awaits `shellParserReady()` before it reads a command.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { setFlagsFromString } from "node:v8";
import { compileFunction } from "node:vm";
import type { Parser, Tree } from "web-tree-sitter";

const require = createRequire(import.meta.url);
let parser: Parser | undefined;
const loading = loadParser();

async function loadParser(): Promise<void> {
  const { Language, Parser } = loadWebTreeSitter();
  // V8 would compile the grammar's WebAssembly a second time, optimised, on background threads as
  // the parser warms up: tens of ms of CPU in every one of a run's first turns, and a slower fork
  // for the bash call after it. A command line parses in microseconds either way: keep the baseline.
  setFlagsFromString("--liftoff-only");
  await Parser.init();
  const bash = await Language.load(readFileSync(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm")));
  const loaded = new Parser();
  loaded.setLanguage(bash);
  parser = loaded;
}

/**
 * web-tree-sitter's CommonJS build, compiled here rather than imported. tsx, which runs every
 * chapter, rewrites each `import()` in every file it loads and maps the result: for this 160 KB
 * file that took ~100 ms of a run's first turns, four times the rest of the load. The build's one
 * `import()` (of fs, in `Language.load`) is never reached: the grammar is handed in as bytes.
 */
function loadWebTreeSitter(): typeof import("web-tree-sitter") {
  const filename = require.resolve("web-tree-sitter");
  const module = { exports: {} as typeof import("web-tree-sitter") };
  const parameters = ["exports", "require", "module", "__filename", "__dirname"];
  const body = compileFunction(readFileSync(filename, "utf8"), parameters, { filename });
  body(module.exports, createRequire(filename), module, filename, dirname(filename));
  return module.exports;
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
