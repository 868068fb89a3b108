/**
 * What a chapter's `src/main.ts` declares in its `ChapterCli`, read from the source: a readme test
 * reads its help text and exit table off main.ts without running the CLI. An exit table may be
 * written in place (`exitCodes: { aborted: 130 }`) or named (`exitCodes: HOOK_EXIT_CODES`), a named
 * one defined in the chapter or an earlier one, and built on another by a spread
 * (`{ ...ABORTABLE_EXIT_CODES, prompt_blocked: 4 }`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** The parts of a chapter's `ChapterCli` its text quotes. */
export interface DeclaredChapterCli {
  command: string;
  summary: string;
  /** The chapter's own exit statuses (`{}` when it declares none). */
  exitCodes: Record<string, number>;
}

/**
 * Read `command`, `summary` and `exitCodes` from `<chapterDir>/src/main.ts`.
 * Throws when main.ts has no `command: "…", summary: "…"` pair, or names an exit table that no
 * chapter's source defines.
 */
export function readChapterCli(chapterDir: string): DeclaredChapterCli {
  const main = readFileSync(join(chapterDir, "src", "main.ts"), "utf8");
  const [, command, summary] = /command: "(\w+)",\s*summary: "([^"]+)"/.exec(main) ?? [];
  if (!command) throw new Error(`${chapterDir}/src/main.ts declares no command and summary`);
  const written = /exitCodes: (\{[^}]*\}|[A-Z][A-Z0-9_]*)/.exec(main)?.[1];
  return { command, summary, exitCodes: written ? exitTable(written, chapterDir, []) : {} };
}

/** An exit table as written: in place, or a name to look up; spreads of other tables followed. */
function exitTable(written: string, chapterDir: string, names: string[]): Record<string, number> {
  if (!written.startsWith("{")) {
    if (names.includes(written)) throw new Error(`the exit table ${written} is built on itself`);
    return exitTable(definitionOf(written, chapterDir), chapterDir, [...names, written]);
  }
  const table: Record<string, number> = {};
  for (const [, spread, reason, code] of written.matchAll(/\.\.\.([A-Z][A-Z0-9_]*)|(\w+): (\d+)/g)) {
    if (spread) Object.assign(table, exitTable(spread, chapterDir, names));
    else table[reason] = Number(code);
  }
  return table;
}

/**
 * The table `export const NAME = { … }` defines: looked up in the chapter's own source first, then
 * in every chapter's beside it (a chapter imports an earlier one's).
 */
function definitionOf(name: string, chapterDir: string): string {
  const chapters = readdirSync(dirname(chapterDir))
    .filter((entry) => /^s\d\d-/.test(entry) && entry !== basename(chapterDir))
    .sort()
    .map((entry) => join(dirname(chapterDir), entry));
  const definition = new RegExp(`export const ${name}\\b[^=]*=\\s*(\\{[^}]*\\})`);
  for (const dir of [chapterDir, ...chapters]) {
    for (const file of sourceFiles(join(dir, "src"))) {
      const found = definition.exec(readFileSync(file, "utf8"))?.[1];
      if (found) return found;
    }
  }
  throw new Error(`${chapterDir}/src/main.ts names the exit table ${name}, which no chapter's source defines`);
}

/** The .ts files of `dir` and of its folders, one level down (a chapter's libraries). */
function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      return readdirSync(path)
        .filter((inner) => inner.endsWith(".ts"))
        .map((inner) => join(path, inner));
    }
    return entry.endsWith(".ts") ? [path] : [];
  });
}
