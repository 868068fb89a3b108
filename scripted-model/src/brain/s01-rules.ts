/**
 * s01's demo rules: the prompts its text tries with one tool, bash (a file created and run, the
 * TypeScript files listed, the git branch, a command in backticks).
 */
import { bashCall as bash, text, textReply, reply as withBlocks } from "../script.ts";
import type { DemoRule } from "./read-conversation.ts";
import { splitBashOutput } from "./read-result.ts";

const createFile: DemoRule = {
  example: 'Create a file called hello.js that prints "Hello, World!"',
  needs: ["bash"],
  matches: (prompt) => CREATE_FILE.test(prompt),
  next({ prompt, exchanges }) {
    const [, file, message] = CREATE_FILE.exec(prompt) ?? [];
    const program = programFor(file, message);
    if (exchanges.length === 0) {
      return withBlocks([
        text(`I'll write ${file}, then run it.`),
        bash(`cat > ${quote(file)} <<'EOF'\n${program.source}\nEOF`),
      ]);
    }
    const [write, run] = exchanges;
    if (write.isError) return textReply(`I could not create ${file}:\n${splitBashOutput(write).output}`);
    if (!run) return withBlocks([text(`Now I'll run it with \`${program.run}\`.`), bash(program.run)]);
    const result = splitBashOutput(run);
    if (run.isError) {
      return textReply(
        `I created ${file}, but \`${program.run}\` failed (exit code ${result.exitCode ?? "none"}):\n\n${result.output}`,
      );
    }
    return textReply(`I created ${file} and ran it with \`${program.run}\`. It printed:\n\n${result.output}`);
  },
};
const CREATE_FILE = /create (?:a )?file (?:called|named) [`"']?([\w./-]+?)[`"']? that prints ["“'](.+?)["”']\s*$/i;

function programFor(file: string, message: string): { source: string; run: string } {
  const literal = JSON.stringify(message);
  if (/\.[cm]?js$/.test(file)) return { source: `console.log(${literal});`, run: `node ${quote(file)}` };
  if (file.endsWith(".py")) return { source: `print(${literal})`, run: `python3 ${quote(file)}` };
  if (file.endsWith(".sh")) return { source: `echo ${quote(message)}`, run: `bash ${quote(file)}` };
  return { source: message, run: `cat ${quote(file)}` };
}

const listTypeScript: DemoRule = {
  example: "List all TypeScript files in this directory",
  needs: ["bash"],
  matches: (prompt) => /\b(?:list|find|show)\b.*\b(?:typescript|\.?ts) files\b/i.test(prompt),
  next({ exchanges }) {
    if (exchanges.length === 0) {
      return withBlocks([
        text("I'll look for .ts and .tsx files, skipping node_modules and .git."),
        bash(
          "find . \\( -name node_modules -o -name .git \\) -prune -o -type f \\( -name '*.ts' -o -name '*.tsx' \\) -print | sed 's|^\\./||' | sort",
        ),
      ]);
    }
    const { output } = splitBashOutput(exchanges[0]);
    if (exchanges[0].isError) return textReply(`The search failed:\n${output}`);
    const files = output.split("\n").filter(Boolean);
    if (files.length === 0)
      return textReply("There are no TypeScript files in this directory (node_modules and .git skipped).");
    const shown = files.slice(0, 40).map((f) => `- ${f}`);
    if (files.length > 40) shown.push(`- ... and ${files.length - 40} more`);
    const noun = files.length === 1 ? "TypeScript file" : "TypeScript files";
    return textReply(`There ${files.length === 1 ? "is" : "are"} ${files.length} ${noun} here:\n${shown.join("\n")}`);
  },
};

const gitBranch: DemoRule = {
  example: "What is the current git branch?",
  needs: ["bash"],
  matches: (prompt) => /\b(?:current|which|what)\b.*\bbranch\b/i.test(prompt),
  next({ exchanges }) {
    if (exchanges.length === 0) return withBlocks([bash("git branch --show-current")]);
    const { output } = splitBashOutput(exchanges[0]);
    if (/not a git repository/i.test(output)) {
      return textReply("This directory is not a git repository, so there is no current branch.");
    }
    if (exchanges[0].isError) return textReply(`git could not tell:\n${output}`);
    const branch = output.trim();
    if (branch === "") return textReply("No branch is checked out: HEAD is detached.");
    return textReply(`The current branch is ${branch}.`);
  },
};

const runCommand: DemoRule = {
  example: "Run `ls -la`",
  needs: ["bash"],
  matches: (prompt) => RUN.test(prompt.trim()),
  next({ prompt, exchanges }) {
    const command = RUN.exec(prompt.trim())?.[1] ?? "";
    if (exchanges.length === 0) return withBlocks([bash(command)]);
    const { output, exitCode } = splitBashOutput(exchanges[0]);
    const status = exitCode === null ? "did not finish" : `exited with code ${exitCode}`;
    return textReply(`\`${command}\` ${status}${output ? ` and printed:\n\n${output}` : " and printed nothing."}`);
  },
};
const RUN = /^run (?:the command )?`([^`]+)`$/i;

function quote(value: string): string {
  return /^[\w./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** s01's rules, in the order they are tried. */
export const S01_RULES: DemoRule[] = [createFile, listTypeScript, gitBranch, runCommand];
