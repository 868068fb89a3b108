#!/usr/bin/env node
// PreToolUse hook for the bash tool: refuse `git push`, so commits leave the machine only when a
// person pushes them. Exit 2 blocks the call; what this prints on stderr is what the model reads.
// A check for accidents, not a sandbox: a determined command can always spell it differently.
import { readFileSync } from "node:fs";

const input = JSON.parse(readFileSync(0, "utf8"));
const command = String(input.tool_input?.command ?? "");

// `git`, where a command starts, then options only (`-C dir`, `--no-pager`), then `push`
const gitPush = /(?:^|[;&|()\n])\s*git(?:\s+-{1,2}[^\s=]+(?:[= ][^-\s]\S*)?)*\s+push\b/;
if (gitPush.test(command)) {
  process.stderr.write("git push is blocked by this project's hooks: commit, and leave the push to a person.\n");
  process.exit(2);
}
