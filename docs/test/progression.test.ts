/**
 * The progression contract: every chapter's README says what it builds on and what it adds, and
 * the code agrees (package.json, src/ imports, earlier chapters only); the chapter list is one
 * list everywhere. First on this repository, then on small made-up repositories, to show that
 * each rule catches what it is for.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findChapters } from "../src/find-chapters.ts";
import {
  chapterTable,
  type ProgressionProblem,
  parseContractLine,
  parseList,
  progressionProblems,
} from "../src/progression-problems.ts";

/** A small loop for the made-up chapters: a header, an import, a doc comment, code. */
const LOOP = [
  "/** s01: a loop. */",
  'import { step } from "./index.ts";',
  "",
  "/** Run until done. */",
  "export function loop(): void {",
  "  while (step()) {}",
  "}",
  "",
].join("\n");

/** One line per problem, so a failure reads as a list: `s04-tracing · rule: message`. */
function lines(problems: ProgressionProblem[]): string[] {
  return problems.map((p) => `${p.chapter} · ${p.rule}: ${p.message}`);
}

describe("the progression contract of this course", () => {
  const problems = progressionProblems();
  const chapters = findChapters();

  it("has chapters", () => {
    expect(chapters.map((c) => c.folder)).toContain("s01-agent-loop");
  });

  it.each(chapters.map((c) => c.folder))("%s says what it builds on and adds, and its code agrees", (folder) => {
    expect(lines(problems.filter((p) => p.chapter === folder))).toEqual([]);
  });

  it("lists the same chapters in README.md, README.zh.md, docs/index.md, docs/index.zh.md and pnpm-workspace.yaml", () => {
    expect(lines(problems.filter((p) => p.chapter === "course"))).toEqual([]);
  });
});

describe("parseContractLine", () => {
  it("reads the English and the Chinese line, links and code spans as their text", () => {
    const en =
      "# s03\n\n**Builds on:** [shared](../shared/README.md), `s02-tool-dispatch` · **Adds:** a trace\n\n## The problem\n";
    const zh = "# s03\n\n**基于：** shared、s02-tool-dispatch · **新增：** 追踪\n\n## 问题\n";
    expect(parseContractLine(en, "README.md")).toEqual({ buildsOn: ["shared", "s02-tool-dispatch"], adds: "a trace" });
    expect(parseContractLine(zh, "README.zh.md")).toEqual({ buildsOn: ["shared", "s02-tool-dispatch"], adds: "追踪" });
  });

  it("ignores a line after the first ## heading", () => {
    expect(
      parseContractLine("# s01\n\n## Later\n\n**Builds on:** shared · **Adds:** x\n", "README.md"),
    ).toBeUndefined();
  });
});

describe("chapterTable", () => {
  it("reads each row's chapter and its builds-on cell", () => {
    const table =
      "| chapter | motto | builds on |\n| --- | --- | --- |\n| [s01-a](s01-a/README.md) | _m_ | shared |\n| [s02-b](s02-b/README.md) | _n_ | shared, s01-a |\n";
    expect(chapterTable(`# Course\n\n${table}\nText.`)).toEqual({
      rows: [
        { chapter: "s01-a", buildsOn: ["shared"] },
        { chapter: "s02-b", buildsOn: ["shared", "s01-a"] },
      ],
    });
  });

  it("treats a dash as building on nothing", () => {
    expect(parseList("—")).toEqual([]);
  });
});

describe("progressionProblems on a made-up course", () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A two-chapter course that keeps the contract; `change` breaks one thing. */
  function course(change: (write: (file: string, text: string) => void) => void = () => {}): string {
    root = mkdtempSync(join(tmpdir(), "docs-progression-"));
    const write = (file: string, text: string) => {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    };
    const table = (readme: string) =>
      `| chapter | builds on |\n| --- | --- |\n| [s01-loop](s01-loop/${readme}) | shared |\n| [s02-tools](s02-tools/${readme}) | shared, s01-loop |\n`;
    write("pnpm-workspace.yaml", "packages:\n  - shared\n  - s01-loop\n  - s02-tools\n  - docs\n");
    write(
      "package.json",
      JSON.stringify({ scripts: { s01: "node s01-loop/src/main.ts", s02: "node s02-tools/src/main.ts" } }),
    );
    for (const file of ["README.md", "README.zh.md", "docs/index.md", "docs/index.zh.md"]) {
      write(file, `# Course\n\n${table(file.endsWith("zh.md") ? "README.zh.md" : "README.md")}`);
    }
    const chapter = (folder: string, buildsOn: string[]) => {
      const deps = Object.fromEntries(buildsOn.map((name) => [`@harness/${name}`, "workspace:*"]));
      write(`${folder}/package.json`, JSON.stringify({ name: `@harness/${folder}`, dependencies: deps }));
      write(
        `${folder}/README.md`,
        `# ${folder}\n\n**Builds on:** ${buildsOn.join(", ")} · **Adds:** a thing\n\n## The problem\n`,
      );
      write(
        `${folder}/README.zh.md`,
        `# ${folder}\n\n**基于：** ${buildsOn.join("、")} · **新增：** 一样东西\n\n## 问题\n`,
      );
      write(`${folder}/src/index.ts`, buildsOn.map((name) => `import "@harness/${name}";\n`).join(""));
      write(`${folder}/src/agent-loop.ts`, LOOP);
    };
    chapter("s01-loop", ["shared"]);
    chapter("s02-tools", ["shared", "s01-loop"]);
    change(write);
    return root;
  }

  it("finds nothing wrong with a course that keeps the contract", () => {
    expect(lines(progressionProblems(course()))).toEqual([]);
  });

  it("names the chapter that imports a later chapter", () => {
    const problems = progressionProblems(
      course((write) => {
        write("s01-loop/src/peek.ts", 'import { thing } from "@harness/s02-tools";\nexport const x = thing;\n');
      }),
    );
    expect(lines(problems)).toEqual([
      "s01-loop · builds on = src imports: the README says shared; src/ imports shared, s02-tools (shared in index.ts; s02-tools in peek.ts)",
    ]);
  });

  it("lets a chapter's tests and devDependencies use the test infrastructure", () => {
    const problems = progressionProblems(
      course((write) => {
        write(
          "s01-loop/package.json",
          JSON.stringify({
            name: "@harness/s01-loop",
            dependencies: { "@harness/shared": "workspace:*" },
            devDependencies: { "@harness/testkit": "workspace:*" },
          }),
        );
        write("s01-loop/test/readme.test.ts", 'import { codeFences } from "@harness/testkit";\n');
      }),
    );
    expect(lines(problems)).toEqual([]);
  });

  it("names a chapter whose src/ imports the test infrastructure", () => {
    const leaking = progressionProblems(
      course((write) => write("s02-tools/src/peek.ts", 'import "@harness/testkit";\n')),
    );
    expect(lines(leaking)).toEqual([
      "s02-tools · builds on = src imports: the README says shared, s01-loop; src/ imports shared, s01-loop, testkit (shared in index.ts; s01-loop in index.ts; testkit in peek.ts)",
    ]);
  });

  it("names a chapter whose README claims a later chapter", () => {
    const problems = progressionProblems(
      course((write) => {
        write("s01-loop/README.md", "# s01\n\n**Builds on:** shared, s02-tools · **Adds:** x\n\n## The problem\n");
      }),
    );
    expect(lines(problems)).toContain(
      "s01-loop · builds on shared and earlier chapters only: s02-tools is not earlier than s01-loop",
    );
  });

  it("names a chapter whose package.json depends on what its README does not say", () => {
    const problems = progressionProblems(
      course((write) => {
        write("s02-tools/package.json", JSON.stringify({ name: "@harness/s02-tools", dependencies: {} }));
      }),
    );
    expect(lines(problems)).toEqual([
      "s02-tools · builds on = package.json: the README says shared, s01-loop; package.json depends on nothing",
    ]);
  });

  it("names a chapter without its Chinese text, or without the contract line", () => {
    const problems = progressionProblems(
      course((write) => {
        write("s02-tools/README.md", "# s02\n\nNo contract here.\n\n## The problem\n");
        rmSync(join(root, "s01-loop", "README.zh.md"));
      }),
    );
    expect(lines(problems)).toEqual([
      "s01-loop · README in both languages: README.zh.md is missing",
      's02-tools · says what it builds on and adds: README.md has no "**Builds on:** ... · **Adds:** ..." line before its first ##',
    ]);
  });

  it("does not read a string that names a package as an import", () => {
    const problems = progressionProblems(
      course((write) => write("s01-loop/src/name.ts", 'export const scope = "@harness/s02-tools";\n')),
    );
    expect(lines(problems)).toEqual([]);
  });

  it("names each list that disagrees with the chapter folders", () => {
    const problems = progressionProblems(
      course((write) => {
        write("pnpm-workspace.yaml", "packages:\n  - shared\n  - s01-loop\n");
        const text = readFileSync(join(root, "docs/index.md"), "utf8");
        write("docs/index.md", text.replace("| shared, s01-loop |", "| shared |"));
      }),
    );
    expect(lines(problems)).toEqual([
      "course · one chapter list: pnpm-workspace.yaml lists s01-loop; the sNN-* folders are s01-loop, s02-tools",
      "course · one chapter list: docs/index.md says s02-tools builds on shared; its README says shared, s01-loop",
    ]);
  });

  it("lets the command line and the libraries import the side packages", () => {
    const problems = progressionProblems(
      course((write) => {
        for (const file of ["main.ts", "flags.ts", "trace-cli.ts", "viewer/format.ts"]) {
          write(
            `s02-tools/src/${file}`,
            'import type { CliIo } from "@harness/cli";\nimport "@harness/scripted-model";\n',
          );
        }
      }),
    );
    expect(lines(problems)).toEqual([]);
  });

  it("names a mechanism file that imports a side package", () => {
    const problems = progressionProblems(
      course((write) => {
        write("s01-loop/src/view.ts", 'import type { TerminalView } from "@harness/cli";\n');
        write("s02-tools/src/model.ts", 'export { ScriptedModel } from "@harness/scripted-model";\n');
      }),
    );
    expect(lines(problems)).toEqual([
      "s01-loop · only the CLI imports the side packages: view.ts imports @harness/cli; only main.ts, flags.ts, *-cli.ts and the libraries in src/ subfolders may",
      "s02-tools · only the CLI imports the side packages: model.ts imports @harness/scripted-model; only main.ts, flags.ts, *-cli.ts and the libraries in src/ subfolders may",
    ]);
  });

  /** s02's loop: s01's with `code` lines added before its closing brace and its header rewritten. */
  const grown = (code: string[]) =>
    LOOP.replace("/** s01: a loop. */", "/** s02: s01's loop, plus more. */").replace(
      "\n}\n",
      `\n${code.join("\n")}\n}\n`,
    );

  it("lets a loop diff change 35 lines, 5 of them comment or import lines", () => {
    const problems = progressionProblems(
      course((write) => {
        const code = Array.from({ length: 29 }, (_, i) => `  step(${i});`);
        // 5: the header, a new import, three lines of comment; 30: code, one line with a comment after it
        const loop = grown(["  // three lines", "  /* of comment", "     in all */", ...code, "  step(); // code"]);
        write("s02-tools/src/agent-loop.ts", loop.replace("\n\n", '\nimport { more } from "./more.ts";\n\n'));
      }),
    );
    expect(lines(problems)).toEqual([]);
  });

  it("names a chapter whose loop diff changes more than 35 lines", () => {
    const problems = progressionProblems(
      course((write) =>
        write("s02-tools/src/agent-loop.ts", grown(Array.from({ length: 35 }, (_, i) => `  step(${i});`))),
      ),
    );
    expect(lines(problems)).toEqual([
      "s02-tools · the loop diff is the lesson: the diff from s01-loop's src/agent-loop.ts to this one changes 36 lines; at most 35",
    ]);
  });

  it("names a chapter whose loop diff changes more than 5 comment or import lines", () => {
    const problems = progressionProblems(
      course((write) => {
        const loop = grown(["  /**", "   * a block comment,", "   * line by line", "   */"]);
        write("s02-tools/src/agent-loop.ts", loop.replace("\n\n", '\nimport {\n  more,\n} from "./more.ts";\n\n'));
      }),
    );
    expect(lines(problems)).toEqual([
      "s02-tools · the loop diff is the lesson: the diff from s01-loop's src/agent-loop.ts to this one changes 8 comment or import lines; at most 5",
    ]);
  });

  it("names a chapter without its copy of the loop", () => {
    const problems = progressionProblems(course(() => rmSync(join(root, "s02-tools", "src", "agent-loop.ts"))));
    expect(lines(problems)).toEqual([
      "s02-tools · the loop diff is the lesson: src/agent-loop.ts is missing: every chapter has its copy of the loop",
    ]);
  });

  it("names a chapter without its pnpm sNN script", () => {
    const problems = progressionProblems(
      course((write) => write("package.json", JSON.stringify({ scripts: { s01: "node s01-loop/src/main.ts" } }))),
    );
    expect(lines(problems)).toEqual([
      'course · one chapter list: the root package.json has no "s02" script running s02-tools/src/main.ts',
    ]);
  });
});
