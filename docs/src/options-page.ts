/**
 * The options page (docs/options.md, docs/options.zh.md) against the chapters' `--help`: every
 * option, REPL command, environment variable and exit status that some chapter's help names is a
 * row of one of the page's tables, saying the chapter that first has it (or none, when every
 * chapter has it); and every row the page has is in some chapter's help. The chapter texts name
 * only their own new options and link this page for the rest, so this is where the whole list is
 * kept true.
 */

/** One chapter's help text, as `pnpm sNN --help` prints it. */
export interface ChapterHelp {
  /** The chapter's command: `s01`, `s02`, ... (in course order). */
  command: string;
  /** What `--help` prints. */
  help: string;
}

/**
 * What a help text names, each as the page writes it in the first cells of its tables: an
 * option's usage (`--max-turns N`, `--trace[=ID]`, `-h, --help`, `prompt`), a REPL command
 * (`/compact [instructions]`), an environment variable (`OPENAI_API_KEY`), an exit status
 * (`5 context_overflow`).
 */
export function namedInHelp(help: string): string[] {
  const names: string[] = [];
  let inRepl = false;
  for (const line of help.split("\n")) {
    if (line === "in the REPL:") inRepl = true;
    const option = /^ {2}(-h, --help|--[a-z][a-z-]*(?:\[=[A-Z]+\]| [A-Z]+(?= ))?|prompt)(?= |$)/.exec(line);
    if (option && !inRepl) names.push(option[1]);
    const command = /^ {2}(\/[a-zA-Z-]+(?: \[[a-z]+\])?)/.exec(line); // `/compact [instructions]`, `/NAME [args]`
    if (command && inRepl) names.push(command[1]);
    if (/^(environment:| {13})/.test(line) && !/^ {13}this chapter:/.test(line)) {
      for (const [variable] of line.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g)) names.push(variable);
    }
    if (/^(exit status:| {13}this chapter:)/.test(line)) {
      for (const [, code, reason] of line.matchAll(/\b(\d+) ([a-z_]+)\b/g)) names.push(`${code} ${reason}`);
    }
  }
  return [...new Set(names)];
}

/**
 * Each name any help has, with the command of the first chapter whose help has it, or `undefined`
 * when every chapter's does.
 */
export function firstChapters(helps: readonly ChapterHelp[]): Map<string, string | undefined> {
  const first = new Map<string, string | undefined>();
  const named = helps.map((chapter) => ({ command: chapter.command, names: new Set(namedInHelp(chapter.help)) }));
  for (const { command, names } of named) {
    for (const name of names) {
      if (first.has(name)) continue;
      first.set(name, named.every((chapter) => chapter.names.has(name)) ? undefined : command);
    }
  }
  return first;
}

/** One row of the page's tables: what it names, and the chapter its cells link (`[s04](…)`), if any. */
export interface PageRow {
  /** The names in its first cell (`--trace[=ID]`; an exit status as `5 context_overflow`). */
  names: string[];
  /** The chapter a cell links as `[sNN](…)`, or undefined (every chapter). */
  from: string | undefined;
  /** The row as written, to quote. */
  line: string;
}

/**
 * The rows of every table on the page (header and separator rows left out). A row's names are the
 * code spans of its first cell; an exit status row (its first cell a number) names
 * `<number> <the code span of its second cell>`.
 */
export function pageRows(markdown: string): PageRow[] {
  const rows: PageRow[] = [];
  const lines = markdown.split("\n");
  lines.forEach((line, index) => {
    if (!line.startsWith("|")) return;
    const next = lines[index + 1] ?? "";
    if (/^\|[\s:|-]+\|$/.test(line) || /^\|[\s:|-]+\|$/.test(next)) return; // a separator, or a header above one
    const cells = line
      .slice(1, line.endsWith("|") ? -1 : undefined)
      .split("|")
      .map((cell) => cell.trim());
    const spans = (cell: string | undefined) => [...(cell ?? "").matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    const names = /^\d+$/.test(cells[0]) ? spans(cells[1]).map((reason) => `${cells[0]} ${reason}`) : spans(cells[0]);
    const from = /\[(s\d\d)\]\(/.exec(cells.slice(1).join("|"))?.[1];
    rows.push({ names, from, line });
  });
  return rows;
}

/**
 * What is wrong with the options page against the chapters' helps, one line each: a name some help
 * has that no row names, a row that says another first chapter, a row naming what no help has.
 */
export function optionsPageProblems(markdown: string, helps: readonly ChapterHelp[]): string[] {
  const first = firstChapters(helps);
  const rows = pageRows(markdown);
  const problems: string[] = [];
  const said = (from: string | undefined) => (from === undefined ? "every chapter" : from);
  for (const [name, from] of first) {
    const row = rows.find((candidate) => candidate.names.includes(name));
    if (!row) {
      problems.push(`no row names \`${name}\` (${from === undefined ? "every chapter's" : `${from}'s`} --help has it)`);
    } else if (row.from !== from) {
      problems.push(`\`${name}\` is from ${said(from)} (the first --help that has it); its row says ${said(row.from)}`);
    }
  }
  for (const row of rows) {
    for (const name of row.names.filter((candidate) => !first.has(candidate) && looksNamed(candidate))) {
      problems.push(`the row of \`${name}\` names what no chapter's --help has: ${row.line}`);
    }
  }
  return problems;
}

/** Whether a code span in a first cell is the kind of name a help has (not a value or a file). */
function looksNamed(span: string): boolean {
  return /^(-|\/|prompt$|[A-Z][A-Z0-9]*_[A-Z0-9_]+$|\d+ [a-z_]+$)/.test(span);
}
