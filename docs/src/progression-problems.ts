/**
 * The progression contract, as a check: each chapter says what it builds on and what it adds, and
 * the code agrees.
 *
 * The convention, near the top of every chapter's README (before its first `##` heading):
 *
 *     **Builds on:** shared, s02-tool-dispatch, s03-streaming · **Adds:** a trace of every iteration on disk, ...
 *     **基于：** shared, s02-tool-dispatch, s03-streaming · **新增：** 每一轮都写到磁盘上的追踪……   (README.zh.md)
 *
 * "Builds on" names folders (links allowed: `[shared](../shared/README.md)`), separated by commas.
 * It must equal the `@harness/*` dependencies in the chapter's package.json and the `@harness/*`
 * packages its src/ imports, and name only `shared` and earlier chapters. The chapter list must be
 * the same, in the same order, in the `sNN-*` folders, pnpm-workspace.yaml, the root package.json's
 * `pnpm sNN` scripts, and the chapter tables of README.md, README.zh.md, docs/index.md and
 * docs/index.zh.md, whose "builds on" columns must say what the chapters' READMEs say.
 *
 * Two rules keep the shape of issue 23: only a chapter's command line imports the side packages
 * (`CLI_PACKAGES`: a mechanism file never does), and each loop diff stays the lesson (at most
 * `MAX_LOOP_DIFF_LINES` changed lines, of which at most `MAX_LOOP_DIFF_COMMENT_OR_IMPORT_LINES`
 * comment or import lines, measured as `loop-diff.ts` says).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import ts from "typescript";
import { CHAPTER_FOLDER, type Chapter, findChapters, folderOf, REPO_ROOT } from "./find-chapters.ts";
import { MAX_LOOP_DIFF_COMMENT_OR_IMPORT_LINES, MAX_LOOP_DIFF_LINES, measureLoopDiff } from "./loop-diff.ts";

/** One broken rule: where, which rule, and what is wrong. */
export interface ProgressionProblem {
  /** The chapter folder, or `course` for a rule about the chapter list as a whole. */
  chapter: string;
  /** The rule, in a few words. */
  rule: string;
  /** What was found, and what was expected. */
  message: string;
}

/** The two languages of a chapter's text, and how each writes the contract line. */
export const CONTRACT_LINES = {
  "README.md": /^\*\*Builds on:\*\*\s*(.*?)\s*·\s*\*\*Adds:\*\*\s*(.*)$/m,
  "README.zh.md": /^\*\*基于：\*\*\s*(.*?)\s*·\s*\*\*新增：\*\*\s*(.*)$/m,
} as const;

/**
 * The course's test infrastructure (`@harness/testkit`): a chapter's tests may import it and its
 * package.json may list it, but it is nothing a chapter builds on, so its src/ never imports it.
 */
export const TEST_INFRASTRUCTURE = "testkit";

/**
 * The side packages a chapter's command line uses (`@harness/cli`, the runner and the terminal view;
 * `@harness/scripted-model`, the offline model): not what a chapter builds on, so of the files at
 * the top of its src/ only its command line (`isCommandLineFile`) imports them, never a file of its
 * mechanism. Its libraries (src/ subfolders) and its tests may.
 */
export const CLI_PACKAGES = ["cli", "scripted-model"] as const;

/**
 * Whether a file at the top of a chapter's src/ is its command line, which may import the side
 * packages: `main.ts` (the composition root), `flags.ts` (its options and what they build) and any
 * `*-cli.ts` (another command, such as `pnpm trace`). Every other top-level file is mechanism.
 */
export function isCommandLineFile(name: string): boolean {
  return name === "main.ts" || name === "flags.ts" || name.endsWith("-cli.ts");
}

/** Where a chapter keeps its copy of the loop, from its folder. */
export const LOOP_FILE = "src/agent-loop.ts";

/** The files whose chapter tables must list every chapter (paths from the repository root). */
export const CHAPTER_TABLES = ["README.md", "README.zh.md", "docs/index.md", "docs/index.zh.md"] as const;

/** What a chapter README's contract line says. */
export interface ContractLine {
  /** Folder names, in the order written. */
  buildsOn: string[];
  /** The text after "Adds:". */
  adds: string;
}

/** Every problem with the progression contract under `root` (none: the course keeps it). */
export function progressionProblems(root: string = REPO_ROOT): ProgressionProblem[] {
  const chapters = findChapters(root);
  return [...chapters.flatMap((chapter) => chapterProblems(chapter, chapters)), ...courseProblems(root, chapters)];
}

/** Read the contract line of a chapter README; undefined when there is none before its first `##`. */
export function parseContractLine(markdown: string, language: keyof typeof CONTRACT_LINES): ContractLine | undefined {
  const head = markdown.split(/^## /m)[0];
  const match = CONTRACT_LINES[language].exec(head);
  if (!match) return undefined;
  return { buildsOn: parseList(match[1]), adds: match[2].trim() };
}

/** `[shared](../shared/README.md), \`s02-tool-dispatch\`` → `["shared", "s02-tool-dispatch"]`. */
export function parseList(cell: string): string[] {
  return plain(cell)
    .split(/[,，、]/)
    .map((item) => item.trim())
    .filter((item) => item !== "" && item !== "—" && item !== "-");
}

function chapterProblems(chapter: Chapter, chapters: Chapter[]): ProgressionProblem[] {
  const problems: ProgressionProblem[] = [];
  const problem = (rule: string, message: string) => problems.push({ chapter: chapter.folder, rule, message });
  problems.push(...loopDiffProblems(chapter, chapters));

  const expectedName = `@harness/${chapter.folder}`;
  if (chapter.packageName !== expectedName) {
    problem("package name", `package.json names it ${chapter.packageName ?? "nothing"}; expected ${expectedName}`);
  }

  const lines = new Map<string, ContractLine>();
  for (const language of Object.keys(CONTRACT_LINES) as (keyof typeof CONTRACT_LINES)[]) {
    const file = join(chapter.path, language);
    if (!existsSync(file)) {
      problem("README in both languages", `${language} is missing`);
      continue;
    }
    const line = parseContractLine(readFileSync(file, "utf8"), language);
    const example = language === "README.md" ? "**Builds on:** ... · **Adds:** ..." : "**基于：** ... · **新增：** ...";
    if (!line) problem("says what it builds on and adds", `${language} has no "${example}" line before its first ##`);
    else if (line.buildsOn.length === 0 || line.adds === "") {
      problem("says what it builds on and adds", `${language}'s contract line leaves "builds on" or "adds" empty`);
    } else lines.set(language, line);
  }
  const [english, chinese] = [lines.get("README.md"), lines.get("README.zh.md")];
  if (english && chinese && !sameSet(english.buildsOn, chinese.buildsOn)) {
    problem(
      "same contract in both languages",
      `README.md builds on ${show(english.buildsOn)}; README.zh.md on ${show(chinese.buildsOn)}`,
    );
  }
  const buildsOn = english?.buildsOn ?? chinese?.buildsOn;
  if (!buildsOn) return problems;

  const known = new Map(chapters.map((c) => [c.folder, c]));
  for (const name of buildsOn) {
    if (name === "shared") continue;
    const other = known.get(name);
    if (!other) problem("builds on shared and earlier chapters only", `${name} is not a chapter or shared`);
    else if (other.number >= chapter.number) {
      problem("builds on shared and earlier chapters only", `${name} is not earlier than ${chapter.folder}`);
    }
  }

  const side = new Set<string>([TEST_INFRASTRUCTURE, ...CLI_PACKAGES]);
  const dependencies = chapter.harnessDependencies.map(folderOf).filter((name) => !side.has(name));
  if (!sameSet(buildsOn, dependencies)) {
    problem(
      "builds on = package.json",
      `the README says ${show(buildsOn)}; package.json depends on ${show(dependencies)}`,
    );
  }
  const imported = harnessImports(join(chapter.path, "src"));
  for (const name of CLI_PACKAGES) imported.delete(name);
  if (!sameSet(buildsOn, [...imported.keys()])) {
    problem(
      "builds on = src imports",
      `the README says ${show(buildsOn)}; src/ imports ${show([...imported.keys()])} (${describe(imported)})`,
    );
  }
  const mechanism = sourceFiles(join(chapter.path, "src"), false).filter((file) => !isCommandLineFile(basename(file)));
  for (const [name, files] of harnessImports(join(chapter.path, "src"), mechanism)) {
    if (!(CLI_PACKAGES as readonly string[]).includes(name)) continue;
    problem(
      "only the CLI imports the side packages",
      `${files.join(", ")} imports @harness/${name}; only main.ts, flags.ts, *-cli.ts and the libraries in src/ subfolders may`,
    );
  }
  const allowed = new Set([...buildsOn, chapter.folder, ...side]);
  const tested = harnessImports(join(chapter.path, "test"));
  for (const [name, files] of tested) {
    if (!allowed.has(name)) {
      problem(
        "tests import what the chapter builds on",
        `${files.join(", ")} imports ${name}, which it does not build on`,
      );
    }
  }
  return problems;
}

/**
 * The loop diff is the lesson: a chapter's loop is its previous chapter's plus what it adds, so
 * the diff between the two changes at most `MAX_LOOP_DIFF_LINES` lines, of which at most
 * `MAX_LOOP_DIFF_COMMENT_OR_IMPORT_LINES` are comment or import lines (`measureLoopDiff`). The
 * first chapter has no previous loop; every chapter has one.
 */
function loopDiffProblems(chapter: Chapter, chapters: Chapter[]): ProgressionProblem[] {
  const problem = (message: string) => ({ chapter: chapter.folder, rule: "the loop diff is the lesson", message });
  const loop = join(chapter.path, LOOP_FILE);
  if (!existsSync(loop)) return [problem(`${LOOP_FILE} is missing: every chapter has its copy of the loop`)];
  const previous = chapters.filter((c) => c.number < chapter.number).at(-1);
  if (!previous || !existsSync(join(previous.path, LOOP_FILE))) return [];
  const diff = measureLoopDiff(join(previous.path, LOOP_FILE), loop);
  const problems: ProgressionProblem[] = [];
  const from = `${previous.folder}'s ${LOOP_FILE} to this one`;
  if (diff.changed > MAX_LOOP_DIFF_LINES) {
    problems.push(problem(`the diff from ${from} changes ${diff.changed} lines; at most ${MAX_LOOP_DIFF_LINES}`));
  }
  if (diff.commentOrImport > MAX_LOOP_DIFF_COMMENT_OR_IMPORT_LINES) {
    problems.push(
      problem(
        `the diff from ${from} changes ${diff.commentOrImport} comment or import lines; at most ${MAX_LOOP_DIFF_COMMENT_OR_IMPORT_LINES}`,
      ),
    );
  }
  return problems;
}

function courseProblems(root: string, chapters: Chapter[]): ProgressionProblem[] {
  const problems: ProgressionProblem[] = [];
  const problem = (rule: string, message: string) => problems.push({ chapter: "course", rule, message });
  const folders = chapters.map((c) => c.folder);

  const workspace = workspaceChapters(root);
  if (!sameList(workspace, folders)) {
    problem("one chapter list", `pnpm-workspace.yaml lists ${show(workspace)}; the sNN-* folders are ${show(folders)}`);
  }
  const scripts = rootScripts(root);
  for (const chapter of chapters) {
    const command = chapter.folder.slice(0, 3);
    if (!scripts[command]?.includes(`${chapter.folder}/src/main.ts`)) {
      problem(
        "one chapter list",
        `the root package.json has no "${command}" script running ${chapter.folder}/src/main.ts`,
      );
    }
  }

  const buildsOn = new Map(chapters.map((c) => [c.folder, readBuildsOn(c)]));
  for (const file of CHAPTER_TABLES) {
    const path = join(root, file);
    if (!existsSync(path)) {
      problem("one chapter list", `${file} is missing`);
      continue;
    }
    const table = chapterTable(readFileSync(path, "utf8"));
    if (!table) {
      problem("one chapter list", `${file} has no chapter table (a table whose first column is "chapter" or "章节")`);
      continue;
    }
    const listed = table.rows.map((row) => row.chapter);
    if (!sameList(listed, folders)) {
      problem(
        "one chapter list",
        `${file}'s chapter table lists ${show(listed)}; the sNN-* folders are ${show(folders)}`,
      );
    }
    if (table.rows.some((row) => row.buildsOn === undefined)) {
      problem("one chapter list", `${file}'s chapter table has no "builds on" (基于) column`);
      continue;
    }
    for (const row of table.rows) {
      const said = buildsOn.get(row.chapter);
      if (said && row.buildsOn && !sameSet(said, row.buildsOn)) {
        problem(
          "one chapter list",
          `${file} says ${row.chapter} builds on ${show(row.buildsOn)}; its README says ${show(said)}`,
        );
      }
    }
  }
  return problems;
}

/** The builds-on list of a chapter's English README, else its Chinese one. */
function readBuildsOn(chapter: Chapter): string[] | undefined {
  for (const language of Object.keys(CONTRACT_LINES) as (keyof typeof CONTRACT_LINES)[]) {
    const file = join(chapter.path, language);
    if (existsSync(file)) {
      const line = parseContractLine(readFileSync(file, "utf8"), language);
      if (line) return line.buildsOn;
    }
  }
  return undefined;
}

/** The chapter table of a page: its rows' chapters and "builds on" cells. */
export function chapterTable(
  markdown: string,
): { rows: { chapter: string; buildsOn: string[] | undefined }[] } | undefined {
  const lines = markdown.split("\n");
  for (let i = 0; i + 1 < lines.length; i++) {
    const header = cells(lines[i]);
    if (!header || !/^(chapter|章节)$/i.test(header[0]) || !/^\|[\s:|-]+\|$/.test(lines[i + 1].trim())) continue;
    const column = header.findIndex((cell) => /^(builds on|基于)$/i.test(cell));
    const rows: { chapter: string; buildsOn: string[] | undefined }[] = [];
    for (let j = i + 2; j < lines.length; j++) {
      const row = cells(lines[j]);
      if (!row) break;
      const chapter = /\b(s\d{2}-[a-z0-9-]+)/.exec(plain(row[0]))?.[1] ?? plain(row[0]);
      rows.push({ chapter, buildsOn: column >= 0 ? parseList(row[column] ?? "") : undefined });
    }
    return { rows };
  }
  return undefined;
}

function cells(line: string): string[] | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith("|")) return undefined;
  return trimmed
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((cell) => cell.trim());
}

/** The `sNN-*` entries of pnpm-workspace.yaml's `packages:` list, in order. */
function workspaceChapters(root: string): string[] {
  const path = join(root, "pnpm-workspace.yaml");
  if (!existsSync(path)) return [];
  const block = /^packages:\s*\n((?:[ \t]+-.*\n?|[ \t]*#.*\n?|\s*\n)*)/m.exec(readFileSync(path, "utf8"))?.[1] ?? "";
  return [...block.matchAll(/^[ \t]+-\s*["']?([^"'\s#]+)/gm)]
    .map((m) => m[1].replace(/\/$/, ""))
    .filter((entry) => CHAPTER_FOLDER.test(entry));
}

function rootScripts(root: string): Record<string, string> {
  const path = join(root, "package.json");
  if (!existsSync(path)) return {};
  return (JSON.parse(readFileSync(path, "utf8")) as { scripts?: Record<string, string> }).scripts ?? {};
}

/** The .ts files under `dir` (with its subfolders' when `recursive`), as absolute paths, sorted. */
function sourceFiles(dir: string, recursive = true): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx|mts|cts)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * Every `@harness/*` package the .ts files under `dir` import (or only `files`, paths under `dir`),
 * with the files that import it, as paths from `dir`.
 */
export function harnessImports(dir: string, files: string[] = sourceFiles(dir)): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of files) {
    // the compiler's own import scanner: import, export ... from, import(), require; not strings
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      const name = /^@harness\/([^/]+)/.exec(fileName)?.[1];
      if (!name) continue;
      const where = found.get(name) ?? [];
      const relative = file.slice(dir.length + 1);
      if (!where.includes(relative)) where.push(relative);
      found.set(name, where);
    }
  }
  return found;
}

/** Links to their text, code spans to their code, emphasis dropped. */
function plain(markdown: string): string {
  return markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/[*_]/g, "")
    .trim();
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const [x, y] = [new Set(a), new Set(b)];
  return x.size === y.size && [...x].every((item) => y.has(item));
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function show(list: readonly string[]): string {
  return list.length === 0 ? "nothing" : list.join(", ");
}

function describe(imports: Map<string, string[]>): string {
  if (imports.size === 0) return "no @harness/* import";
  return [...imports].map(([name, files]) => `${name} in ${files.join(", ")}`).join("; ");
}
