/**
 * s02's demo rules: the prompts its text tries with the file tools (a file read and summarised,
 * TODO comments found, several files read at once, a file edited and read back, a file read with
 * a tool the prompt names).
 */
import { text, textReply, toolUse, reply as withBlocks } from "../script.ts";
import type { DemoRule } from "./read-conversation.ts";
import { fileText } from "./read-result.ts";

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

/** s02's rules, in the order they are tried. */
export const S02_RULES: DemoRule[] = [summariseFile, findTodos, readSeveral, editFile, readWithNamedTool];
