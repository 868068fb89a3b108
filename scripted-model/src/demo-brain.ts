/**
 * The demos' brain: a few rules that make the scripted model useful without a key.
 *
 * For each try-it prompt it knows, it asks for real tool calls, reads the real results in the
 * next request, and answers from them. It keeps no state of its own: every decision is read off
 * the conversation it is sent, as a real model's is. For any other prompt it says what it is,
 * which prompts it knows, and how to use a real model.
 */
import type { MessageCreateParams, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { CONTEXT_RULES } from "./compaction/context-rules.ts";
import { recallAnswer } from "./recall-answer.ts";
import { type ScriptedReply, text, textReply, toolUse, reply as withBlocks } from "./script.ts";
import type { ScriptedApi } from "./scripted-model.ts";

/** A tool call of the current prompt and the result it got. */
export interface Exchange {
  name: string;
  input: Record<string, unknown>;
  /** The result's text (`[exit code N]` footer included for bash). */
  output: string;
  isError: boolean;
}

/** What the brain reads off a request: the latest prompt and the tool exchanges since it. */
export interface Conversation {
  prompt: string;
  exchanges: Exchange[];
  /** Names of the tools the request offers. */
  tools: Set<string>;
  /** The whole conversation the request carries, for rules that read further back than the prompt. */
  messages: MessageParam[];
  /** The messages before the latest prompt. */
  earlier: MessageParam[];
}

/** One thing the brain knows how to do: a prompt it recognises and the replies it gives. */
export interface DemoRule {
  /** A prompt that triggers it, listed for prompts the brain does not know. */
  example: string;
  /** Tools it needs; it is offered only when the request has them all. */
  needs: string[];
  /** True for a prompt a harness sends rather than one a user types: not listed as an example. */
  unlisted?: boolean;
  /** True when this rule answers this prompt (the latest one in the conversation). */
  matches(prompt: string): boolean;
  /** The next reply, from the exchanges so far. */
  next(conversation: Conversation): ScriptedReply;
}

/** The brain: the first rule whose prompt matches and whose tools are offered answers. */
export function demoBrain(request: MessageCreateParams, wire?: { api: ScriptedApi }): ScriptedReply {
  const conversation = readConversation(request);
  const usable = DEMO_RULES.filter((rule) => rule.needs.every((t) => conversation.tools.has(t)));
  const rule = usable.find((r) => r.matches(conversation.prompt));
  if (rule) return rule.next(conversation);
  const examples = usable
    .filter((r) => !r.unlisted)
    .map((r) => `  - ${r.example}`)
    .join("\n");
  return textReply(
    "I am the offline scripted model: a stand-in for Claude that runs with no key and no network, " +
      "so I only know a few prompts. Try one of these:\n" +
      `${examples}\n` +
      (wire === undefined || wire.api === "messages"
        ? "To use a real model, set ANTHROPIC_API_KEY (in your shell or in .env at the repository root), " +
          "or point ANTHROPIC_BASE_URL at an Anthropic-compatible endpoint (with any key it accepts, e.g. " +
          "ANTHROPIC_AUTH_TOKEN=ollama), and run without --offline."
        : "To use a real model, set OPENAI_API_KEY (in your shell or in .env at the repository root), " +
          "and OPENAI_BASE_URL for a server other than OpenAI's (any key it accepts, e.g. " +
          "OPENAI_API_KEY=ollama for Ollama's /v1), and run without --offline."),
  );
}

/** Read the latest text prompt and every tool call and result after it. */
export function readConversation(request: MessageCreateParams): Conversation {
  const messages = request.messages;
  const tools = new Set((request.tools ?? []).map((t) => (t as { name: string }).name));
  let start = messages.length - 1;
  while (start > 0 && !isPrompt(messages[start])) start--;
  const prompt = promptText(messages[start]);
  const exchanges: Exchange[] = [];
  for (let i = start + 1; i < messages.length; i++) {
    const message = messages[i];
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    const next = messages[i + 1];
    const results = next && typeof next.content !== "string" ? next.content : [];
    for (const block of message.content) {
      if (block.type !== "tool_use") continue;
      const result = results.find((r) => r.type === "tool_result" && r.tool_use_id === block.id);
      const content = result && result.type === "tool_result" ? result.content : "";
      exchanges.push({
        name: block.name,
        input: (block.input ?? {}) as Record<string, unknown>,
        output:
          typeof content === "string" ? content : (content ?? []).map((c) => ("text" in c ? c.text : "")).join(""),
        isError: result?.type === "tool_result" && result.is_error === true,
      });
    }
  }
  return { prompt, exchanges, tools, messages, earlier: messages.slice(0, start) };
}

function isPrompt(message: MessageParam): boolean {
  if (message.role !== "user") return false;
  if (typeof message.content === "string") return true;
  return message.content.some((b) => b.type === "text");
}

/** A prompt is the message's last text: earlier texts in it are older words (a summary, a prompt never answered). */
function promptText(message: MessageParam | undefined): string {
  if (!message) return "";
  if (typeof message.content === "string") return message.content;
  const texts = message.content.flatMap((b) => (b.type === "text" ? [b.text] : []));
  return texts.at(-1) ?? "";
}

/** A bash result split into its output and exit code. */
export function splitBashOutput(exchange: Exchange): { output: string; exitCode: number | null } {
  const match = /\n?\[exit code (\d+)\]$/.exec(exchange.output);
  const body = match ? exchange.output.slice(0, match.index) : exchange.output.replace(/\n?\[[^\]]*\]$/, "");
  return { output: body === "(no output)" ? "" : body, exitCode: match ? Number(match[1]) : null };
}

const bash = (command: string) => toolUse("bash", { command });

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

/** The text of a read_file result, without its line numbers and window note. */
export function fileText(exchange: Exchange): string {
  return exchange.output
    .split("\n")
    .filter((line) => !/^\[lines \d+-\d+ of \d+/.test(line))
    .map((line) => line.replace(/^\s*\d+\t/, ""))
    .join("\n");
}

const summariseFile: DemoRule = {
  example: "Read README.md and summarise it",
  needs: ["read_file"],
  matches: (prompt) => SUMMARISE.test(prompt),
  next({ prompt, exchanges }) {
    const [, path] = SUMMARISE.exec(prompt) ?? [];
    if (exchanges.length === 0) return withBlocks([toolUse("read_file", { path })]);
    const read = exchanges[0];
    if (read.isError) return textReply(`I could not read ${path}: ${read.output}`);
    return textReply(summarise(path, fileText(read), read.output));
  },
};
const SUMMARISE = /\bread ([\w./-]+) and summari[sz]e it\b/i;

/** A summary built from the file's real text: its size, title, sections or definitions, and opening. */
function summarise(path: string, content: string, raw: string): string {
  const lines = content.split("\n");
  const total = Number(/\[lines \d+-\d+ of (\d+)/.exec(raw)?.[1] ?? lines.length);
  const headings = lines.filter((l) => /^#{1,3} /.test(l)).map((l) => l.replace(/^#+ /, ""));
  const definitions = lines
    .map((l) => /^(?:export )?(?:default )?(?:async )?(?:function|class|interface|type|const) (\w+)/.exec(l)?.[1])
    .filter((name): name is string => name !== undefined);
  const prose = lines.find((l) => /^[A-Za-z*_`]/.test(l) && !/^(?:import|export|const|function)\b/.test(l));
  const parts = [`${path} is ${total} line${total === 1 ? "" : "s"} long.`];
  if (headings.length > 0) {
    parts.push(`Its title is "${headings[0]}".`);
    if (headings.length > 1) parts.push(`Its sections: ${headings.slice(1, 9).join(", ")}.`);
  } else if (definitions.length > 0) {
    parts.push(`It defines ${definitions.slice(0, 8).join(", ")}.`);
  }
  if (prose) parts.push(`It opens with: "${prose.slice(0, 200)}"`);
  return parts.join(" ");
}

const findTodos: DemoRule = {
  example: "Find the TODO comments in this repository",
  needs: ["grep"],
  matches: (prompt) => /\b(?:find|list|show)\b.*\b(?:TODO|FIXME)s?\b/i.test(prompt),
  next({ exchanges }) {
    if (exchanges.length === 0) {
      return withBlocks([
        text("I'll search for TODO and FIXME markers."),
        toolUse("grep", { pattern: "\\b(TODO|FIXME)\\b" }),
      ]);
    }
    const grep = exchanges[0];
    if (grep.isError) return textReply(`The search failed: ${grep.output}`);
    if (grep.output.startsWith("No lines match")) return textReply("There are no TODO or FIXME comments here.");
    const hits = grep.output.split("\n").filter((l) => /^[^\s:]+:\d+: /.test(l));
    const more = /^\[(\d+) more matches/m.exec(grep.output);
    const count = hits.length + Number(more?.[1] ?? 0);
    return textReply(
      `I found ${count} TODO/FIXME comment${count === 1 ? "" : "s"}:\n${hits.map((h) => `- ${h}`).join("\n")}`,
    );
  },
};

const readSeveral: DemoRule = {
  example: "Read package.json, README.md and .gitignore",
  needs: ["read_file"],
  matches: (prompt) => SEVERAL.test(prompt.trim()),
  next({ prompt, exchanges }) {
    const paths = (SEVERAL.exec(prompt.trim())?.[1] ?? "").split(/\s*(?:,|\band\b)\s*/).filter(Boolean);
    if (exchanges.length === 0) {
      // one turn, several calls: the harness may run them at the same time
      return withBlocks([
        text(`I'll read all ${paths.length} at once.`),
        ...paths.map((path) => toolUse("read_file", { path })),
      ]);
    }
    const lines = exchanges.map((read) => {
      const path = String(read.input.path);
      if (read.isError) return `- ${path}: could not be read (${read.output})`;
      const content = fileText(read).split("\n");
      const first = content.find((l) => l.trim() !== "") ?? "";
      return `- ${path}: ${content.length} line${content.length === 1 ? "" : "s"}, starting \`${first.trim().slice(0, 80)}\``;
    });
    return textReply(`I read ${exchanges.length} files:\n${lines.join("\n")}`);
  },
};
const SEVERAL = /^read ((?:[\w./-]+\s*,\s*)*[\w./-]+,?\s+and\s+[\w./-]+)$/i;

const editFile: DemoRule = {
  example: 'In notes.txt, replace "draft" with "final", then read it back',
  needs: ["edit_file", "read_file"],
  matches: (prompt) => EDIT.test(prompt),
  next({ prompt, exchanges }) {
    const [, path, before, after] = EDIT.exec(prompt) ?? [];
    if (exchanges.length === 0) {
      return withBlocks([toolUse("edit_file", { path, old_string: before, new_string: after })]);
    }
    const [edit, read] = exchanges;
    if (edit.isError) return textReply(`The edit did not happen: ${edit.output}`);
    if (!read) return withBlocks([text("Edited. Reading it back:"), toolUse("read_file", { path })]);
    if (read.isError) return textReply(`I edited ${path} but could not read it back: ${read.output}`);
    return textReply(`I replaced "${before}" with "${after}" in ${path}. It now reads:\n\n${fileText(read)}`);
  },
};
const EDIT = /\bin ([\w./-]+),? replace ["“](.+?)["”] with ["“](.*?)["”]/i;

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

/**
 * A file read with a tool the prompt names: the call is made whether or not the request offers
 * that tool, as a real model may do when a user names one, and the answer reads the real result
 * (the file's summary, or the error the harness gave).
 */
const readWithNamedTool: DemoRule = {
  example: "Read package.json with the read_file tool",
  needs: [],
  matches: (prompt) => NAMED_TOOL.test(prompt.trim()),
  next({ prompt, exchanges }) {
    const [, path, tool] = NAMED_TOOL.exec(prompt.trim()) ?? [];
    if (exchanges.length === 0) {
      return withBlocks([text(`I'll read ${path} with ${tool}.`), toolUse(tool, { path })]);
    }
    const read = exchanges[0];
    if (read.isError) return textReply(`${tool} did not read ${path}. The harness answered:\n${read.output}`);
    return textReply(summarise(path, fileText(read), read.output));
  },
};
const NAMED_TOOL = /^read ([\w./-]+) with the (\w+) tool$/i;

const runLine: DemoRule = {
  example: "Run git status --short && git diff --stat",
  needs: ["bash"],
  matches: (prompt) => LINE.test(prompt.trim()),
  next({ prompt, exchanges }) {
    const line = LINE.exec(prompt.trim())?.[1] ?? "";
    if (exchanges.length === 0) return withBlocks([bash(line)]);
    const { output, exitCode } = splitBashOutput(exchanges[0]);
    // an error with no exit code never ran: the harness answered for it, and says why
    const refused = exchanges[0].isError && exitCode === null ? /^Error \[\w+\]: ([\s\S]*)$/.exec(output) : null;
    if (refused) return textReply(`The harness did not run \`${line}\`. It said: ${refused[1]}`);
    const status = exitCode === null ? "did not finish" : `exited with code ${exitCode}`;
    return textReply(`\`${line}\` ${status}${output ? ` and printed:\n\n${output}` : " and printed nothing."}`);
  },
};
/** A shell line of several commands, written without backticks. */
const LINE = /^run ([^`\s][^`]*?(?:&&|\|\||;|\|)[^`]*)$/i;

/** The text of a bash result the harness gave instead of running it (`Error [code]: why`), else undefined. */
function refusedWhy(exchange: Exchange): string | undefined {
  const { output, exitCode } = splitBashOutput(exchange);
  if (!exchange.isError || exitCode !== null) return undefined;
  return /^Error \[\w+\]: ([\s\S]*)$/.exec(output)?.[1];
}

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

/** Every rule, in the order they are tried. Chapters' tools decide which are offered. */
export const DEMO_RULES: DemoRule[] = [
  createFile,
  listTypeScript,
  gitBranch,
  runCommand,
  summariseFile,
  findTodos,
  readSeveral,
  editFile,
  readWithNamedTool,
  runLine,
  pushBranch,
  writeThenRead,
  testsFail,
  recallAnswer,
  ...CONTEXT_RULES,
];

function quote(value: string): string {
  return /^[\w./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
