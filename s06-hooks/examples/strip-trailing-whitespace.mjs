#!/usr/bin/env node
// PostToolUse hook for edit_file and write_file: strip the spaces and tabs at the ends of the
// lines of the file just written, a formatter that needs nothing installed. The model is told
// (additionalContext), so its next edit quotes the file as it now is; the user sees one line.
import { readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";

const input = JSON.parse(readFileSync(0, "utf8"));
const project = process.env.HARNESS_PROJECT_DIR ?? input.cwd;
const path = input.tool_input?.file_path ?? input.tool_input?.path;
if (input.tool_response?.is_error || typeof path !== "string") process.exit(0);

const file = resolve(input.cwd, path);
const inside = relative(project, file);
if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) process.exit(0); // not the project's

const text = readFileSync(file, "utf8");
if (text.includes("\0")) process.exit(0); // binary: not ours to touch
let lines = 0;
const stripped = text.replace(/[ \t]+(?=\r?$)/gm, () => {
  lines += 1;
  return "";
});
if (lines === 0) process.exit(0);
writeFileSync(file, stripped);
const said = `stripped trailing whitespace from ${lines} line${lines === 1 ? "" : "s"} of ${inside}`;
process.stdout.write(
  JSON.stringify({
    systemMessage: `formatter: ${said}`,
    hookSpecificOutput: {
      hookEventName: "PostToolUse",
      additionalContext: `A formatter hook ${said}; read it again before editing it.`,
    },
  }),
);
