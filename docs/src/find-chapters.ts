/**
 * Which chapters the course has: every `sNN-*` folder at the repository root, in number order.
 * The site build and the progression test both start here, so a new chapter needs no list edited
 * in this package.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The folder name of a chapter: `s`, two digits, a dash, a name (`s01-agent-loop`). */
export const CHAPTER_FOLDER = /^s(\d{2})-[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A chapter folder and what its package.json says. */
export interface Chapter {
  /** The folder name, `s01-agent-loop`: the chapter's name everywhere in the course. */
  folder: string;
  /** The chapter's number, 1 for s01. */
  number: number;
  /** The folder's absolute path. */
  path: string;
  /** The package name from package.json (`@harness/s01-agent-loop`), or undefined without one. */
  packageName: string | undefined;
  /** Every `@harness/*` package in its dependencies and devDependencies, as written there. */
  harnessDependencies: string[];
}

/** The chapters under `root`, in number order. */
export function findChapters(root: string = REPO_ROOT): Chapter[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && CHAPTER_FOLDER.test(entry.name))
    .map((entry) => readChapter(root, entry.name))
    .sort((a, b) => a.number - b.number || a.folder.localeCompare(b.folder));
}

function readChapter(root: string, folder: string): Chapter {
  const path = join(root, folder);
  const manifest = join(path, "package.json");
  const pkg = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as PackageJson) : {};
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  return {
    folder,
    number: Number(CHAPTER_FOLDER.exec(folder)?.[1]),
    path,
    packageName: pkg.name,
    harnessDependencies: Object.keys(deps)
      .filter((name) => name.startsWith("@harness/"))
      .sort(),
  };
}

interface PackageJson {
  name?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The folder a `@harness/*` package name stands for: `@harness/shared` → `shared`. */
export function folderOf(packageName: string): string {
  return packageName.replace(/^@harness\//, "");
}
