/**
 * The options page (docs/options.md and docs/options.zh.md) is the CLI contract's options in one
 * place: checked against every chapter's `--help` (the exported `chapter`, printed as the runner
 * prints it), so it cannot drift from the code; and it is a page of the site, linked from the
 * course home like the others. Then made-up pages, to show each rule fires.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type ChapterCli, usage } from "@harness/cli";
import { describe, expect, it } from "vitest";
import { findChapters, REPO_ROOT } from "../src/find-chapters.ts";
import { type ChapterHelp, firstChapters, namedInHelp, optionsPageProblems, pageRows } from "../src/options-page.ts";

const PAGES = ["options.md", "options.zh.md"] as const;

/** Every chapter's `--help`, from its exported `chapter`. */
async function chapterHelps(): Promise<ChapterHelp[]> {
  const helps: ChapterHelp[] = [];
  for (const chapter of findChapters()) {
    const module = (await import(pathToFileURL(join(chapter.path, "src", "main.ts")).href)) as {
      chapter: ChapterCli<string>;
    };
    const { command, summary, flags, exitCodes, commandHelp, environment } = module.chapter;
    helps.push({ command, help: usage(command, summary, [...(flags ?? [])], exitCodes, commandHelp, environment) });
  }
  return helps;
}

const page = (name: string) => readFileSync(join(REPO_ROOT, "docs", name), "utf8");

describe("the options page", () => {
  it.each(PAGES)(
    "%s names every option, command, variable and exit status of every chapter's --help",
    { timeout: 60_000 },
    async (name) => {
      const helps = await chapterHelps();
      expect(helps.length).toBeGreaterThan(0);
      expect(optionsPageProblems(page(name), helps)).toEqual([]);
    },
  );

  it("is a page of the site, linked from the course home and the glossary's language bar alike", () => {
    const typedoc = JSON.parse(readFileSync(join(REPO_ROOT, "typedoc.json"), "utf8")) as { projectDocuments: string[] };
    expect(typedoc.projectDocuments).toEqual(expect.arrayContaining(["docs/options.md", "docs/options.zh.md"]));
    expect(page("index.md").split("\n")[2]).toContain("[Options](options.md)");
    expect(page("index.zh.md").split("\n")[2]).toContain("[选项](options.zh.md)");
  });
});

describe("namedInHelp and firstChapters", () => {
  const help = (command: string, extra: string[], codes: Record<string, number> = {}, commands: string[] = []) =>
    usage(
      command,
      "a chapter",
      extra.map((line) => ({ name: line.slice(2).split(/[ [=]/)[0], type: "string" as const, help: line })),
      codes,
      commands,
      extra.length > 0 ? ["OPENAI_API_KEY for the other format"] : [],
    );

  it("reads options with their values, REPL commands, variables and exit statuses", () => {
    const names = namedInHelp(
      help("s04", ["--trace[=ID]        record", "--permission-mode M what runs"], { aborted: 130 }, [
        "/compact [x]  now",
      ]),
    );
    expect(names).toEqual(
      expect.arrayContaining([
        "prompt",
        "--max-turns N",
        "--json",
        "-h, --help",
        "--trace[=ID]",
        "--permission-mode M",
        "/compact [x]",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "MODEL_ID",
        "0 final_answer",
        "130 aborted",
      ]),
    );
    expect(names).not.toContain("--permission-mode M what");
  });

  it("says the first chapter that has a name, none when every chapter does", () => {
    const first = firstChapters([
      { command: "s01", help: help("s01", []) },
      { command: "s02", help: help("s02", ["--trace[=ID]        record"]) },
      { command: "s03", help: help("s03", ["--trace[=ID]        record"]) },
    ]);
    expect(first.get("--json")).toBeUndefined();
    expect(first.has("--json")).toBe(true);
    expect(first.get("--trace[=ID]")).toBe("s02");
  });
});

describe("optionsPageProblems", () => {
  const helps: ChapterHelp[] = [
    { command: "s01", help: usage("s01", "a chapter") },
    {
      command: "s02",
      help: usage(
        "s02",
        "a chapter",
        [{ name: "trace", type: "string", optionalValue: true, help: "--trace[=ID]  x" }],
        {
          aborted: 130,
        },
      ),
    },
  ];
  const contract = [
    "| `prompt` | x |",
    "| `--max-turns N` | x |",
    "| `--json` | x |",
    "| `--offline` | x |",
    "| `--model ID` | x |",
    "| `--cwd DIR` | x |",
    "| `--bash-timeout S` | x |",
    "| `--model-timeout S` | x |",
    "| `-h, --help` | x |",
    "| `ANTHROPIC_API_KEY` or `ANTHROPIC_AUTH_TOKEN` | every chapter | x |",
    "| `ANTHROPIC_BASE_URL` | every chapter | x |",
    "| `MODEL_ID` | every chapter | x |",
    "| 0 | `final_answer` | every chapter |",
    "| 2 | `max_turns` | every chapter |",
    "| 3 | `max_tokens` | every chapter |",
    "| 1 | `error` | every chapter |",
    "| 130 | `interrupted` | every chapter |",
  ];
  const table = (rows: string[]) => ["| Option | What |", "| --- | --- |", ...rows].join("\n");
  const whole = [...contract, "| `--trace[=ID]` | [s02](../s02/README.md) | x |", "| 130 | `aborted` | [s02](x) |"];

  it("finds nothing wrong with a page that has every row, from the right chapter", () => {
    expect(optionsPageProblems(table(whole), helps)).toEqual([]);
    expect(pageRows(table(whole)).map((row) => row.names[0])).toContain("130 aborted");
  });

  it("names a row missing, and a row that says the wrong chapter", () => {
    expect(optionsPageProblems(table(whole.filter((row) => !row.includes("--trace"))), helps)).toEqual([
      "no row names `--trace[=ID]` (s02's --help has it)",
    ]);
    const wrong = whole.map((row) => row.replace("[s02](../s02/README.md)", "[s01](../s01/README.md)"));
    expect(optionsPageProblems(table(wrong), helps)).toEqual([
      "`--trace[=ID]` is from s02 (the first --help that has it); its row says s01",
    ]);
    const everyChapter = whole.map((row) => row.replace("| 130 | `aborted` | [s02](x) |", "| 130 | `aborted` | all |"));
    expect(optionsPageProblems(table(everyChapter), helps)).toEqual([
      "`130 aborted` is from s02 (the first --help that has it); its row says every chapter",
    ]);
  });

  it("names a row no help has: an option written another way counts as both", () => {
    const renamed = whole.map((row) => row.replace("`--trace[=ID]`", "`--trace`"));
    expect(optionsPageProblems(table([...renamed, "| `--verbose` | x |"]), helps)).toEqual([
      "no row names `--trace[=ID]` (s02's --help has it)",
      "the row of `--trace` names what no chapter's --help has: | `--trace` | [s02](../s02/README.md) | x |",
      "the row of `--verbose` names what no chapter's --help has: | `--verbose` | x |",
    ]);
  });
});
