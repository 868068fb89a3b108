/**
 * s06's demo rules: the prompts its text tries with hooks (a push a PreToolUse hook may block, a
 * line written and read back that a PostToolUse formatter may change, failing tests a Stop hook
 * reports); each answer reads what really happened to its calls.
 */
import { bashCall as bash, text, textReply, toolUse, reply as withBlocks } from "../script.ts";
import type { DemoRule } from "./read-conversation.ts";
import { fileText, refusedWhy, splitBashOutput } from "./read-result.ts";

/** A push asked for: `git push`, and the answer reads what happened to it (run, failed, or refused). */
const pushBranch: DemoRule = {
  example: "Push this branch",
  needs: ["bash"],
  matches: (prompt) => /^push (?:this|my) branch\.?$/i.test(prompt.trim()),
  next({ exchanges }) {
    if (exchanges.length === 0) return withBlocks([text("I'll push it with `git push`."), bash("git push")]);
    const why = refusedWhy(exchanges[0]);
    if (why !== undefined) return textReply(`I did not push: the harness refused \`git push\`. It said: ${why}`);
    const { output, exitCode } = splitBashOutput(exchanges[0]);
    if (exitCode === 0) return textReply(`Pushed.${output ? `\n\n${output}` : ""}`);
    return textReply(`\`git push\` failed (exit code ${exitCode ?? "none"}):\n\n${output}`);
  },
};

/** Lines of `text` that end in spaces or tabs. */
function trailingWhitespaceLines(text: string): number {
  return text.split("\n").filter((line) => /[ \t]$/.test(line)).length;
}

/** A file written as the prompt quotes it, then read back: the answer compares the two. */
const writeThenRead: DemoRule = {
  example: 'Write "let total = 1;   " to total.js, then read it back',
  needs: ["write_file", "read_file"],
  matches: (prompt) => WRITE.test(prompt.trim()),
  next({ prompt, exchanges }) {
    const [, content, path] = WRITE.exec(prompt.trim()) ?? [];
    const written = `${content}\n`;
    if (exchanges.length === 0) return withBlocks([toolUse("write_file", { path, content: written })]);
    const [write, read] = exchanges;
    if (write.isError) return textReply(`I could not write ${path}: ${write.output}`);
    if (!read) return withBlocks([text("Written. Reading it back:"), toolUse("read_file", { path })]);
    if (read.isError) return textReply(`I wrote ${path} but could not read it back: ${read.output}`);
    const now = fileText(read);
    const count = (n: number) => `${n} line${n === 1 ? "" : "s"}`;
    return textReply(
      `I wrote ${path}. The write said:\n\n${write.output}\n\nRead back, it is:\n\n${now}\n\n` +
        `As I wrote it, ${count(trailingWhitespaceLines(written))} ended in spaces or tabs; as it is now, ${count(trailingWhitespaceLines(now))}.`,
    );
  },
};
const WRITE = /^write ["“](.*?)["”] to ([\w./-]+),? then read it back$/i;

/**
 * Failing tests reported: run the test command the message names in backticks (else `npm test`)
 * and answer with what it prints. The scripted model can show a failure, not fix one.
 */
const testsFail: DemoRule = {
  example: "The tests fail: find out why",
  needs: ["bash"],
  matches: (prompt) => /\btests? (?:fail|failed|are failing)\b/i.test(prompt),
  next({ prompt, exchanges }) {
    const command = /`([^`]+)`/.exec(prompt)?.[1] ?? "npm test";
    if (exchanges.length === 0) return withBlocks([text(`I'll run \`${command}\` to see the failure.`), bash(command)]);
    const why = refusedWhy(exchanges[0]);
    if (why !== undefined) return textReply(`The harness did not run \`${command}\`. It said: ${why}`);
    const { output, exitCode } = splitBashOutput(exchanges[0]);
    if (exitCode === 0) return textReply(`\`${command}\` passes now (exit code 0).${output ? `\n\n${output}` : ""}`);
    return textReply(
      `\`${command}\` exits with code ${exitCode ?? "none"}:\n\n${output}\n\n` +
        "I am the offline scripted model: I can show you the failure, not fix it.",
    );
  },
};

/** s06's rules, in the order they are tried. */
export const S06_RULES: DemoRule[] = [pushBranch, writeThenRead, testsFail];
