/**
 * What a chapter's `src/main.ts` declares in its `ChapterCli`, read from the source: a readme test
 * cannot import main.ts (it runs the CLI and exits), yet its help text and exit table must match
 * what main.ts declares.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The parts of a chapter's `ChapterCli` its text quotes. */
export interface DeclaredChapterCli {
  command: string;
  summary: string;
  /** The chapter's own exit statuses (`{}` when it declares none). */
  exitCodes: Record<string, number>;
}

/**
 * Read `command`, `summary` and `exitCodes` from `<chapterDir>/src/main.ts`.
 * Throws when main.ts has no `command: "…", summary: "…"` pair.
 */
export function readChapterCli(chapterDir: string): DeclaredChapterCli {
  const main = readFileSync(join(chapterDir, "src", "main.ts"), "utf8");
  const [, command, summary] = /command: "(\w+)",\s*summary: "([^"]+)"/.exec(main) ?? [];
  if (!command) throw new Error(`${chapterDir}/src/main.ts declares no command and summary`);
  const table = /exitCodes: \{([^}]*)\}/.exec(main)?.[1] ?? "";
  const exitCodes = Object.fromEntries(
    [...table.matchAll(/(\w+): (\d+)/g)].map(([, reason, code]) => [reason, Number(code)] as const),
  );
  return { command, summary, exitCodes };
}
