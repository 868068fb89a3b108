/**
 * Exercises as checked claims, the fast part: every chapter's manifest (test/exercises.ts) is well
 * formed, each change's `find` occurs exactly once, and each chapter text's exercises section shows
 * the command of its manifest's exercise. (`pnpm test:exercises` makes the changes and runs the
 * tests.) Then made-up manifests, texts and test runs, to show each rule fires.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exerciseOutcome, referenceOutcome, stubOutcome, type VitestReport } from "../src/exercise-outcome.ts";
import {
  checkManifest,
  type Exercise,
  exerciseCommand,
  readExercises,
  testNames,
  writtenExerciseProblems,
  writtenExercises,
} from "../src/exercises.ts";
import { findChapters } from "../src/find-chapters.ts";

const TEXTS = ["README.md", "README.zh.md"] as const;

describe("the exercises of this course", () => {
  const chapters = findChapters();

  it("has at least one chapter with a manifest", async () => {
    const manifests = await Promise.all(chapters.map((chapter) => readExercises(chapter)));
    expect(manifests.filter((manifest) => manifest !== undefined).length).toBeGreaterThan(0);
  });

  it.each(chapters.map((chapter) => chapter.folder))(
    "%s: the manifest is well formed and its text shows each exercise's command",
    async (folder) => {
      const chapter = chapters.find((c) => c.folder === folder)!;
      const manifest = await readExercises(chapter);
      const problems = [...(manifest?.problems ?? [])];
      for (const text of TEXTS) {
        const markdown = readFileSync(join(chapter.path, text), "utf8");
        const packageName = chapter.packageName ?? `@harness/${folder}`;
        problems.push(...writtenExerciseProblems(chapter, packageName, text, markdown, manifest?.exercises));
      }
      expect(problems.map((p) => p.message)).toEqual([]);
    },
  );
});

describe("checkManifest", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A made-up chapter: src/loop.ts and a test file with two tests. */
  function chapter(): { folder: string; path: string } {
    const path = mkdtempSync(join(tmpdir(), "exercises-"));
    dirs.push(path);
    mkdirSync(join(path, "src"));
    mkdirSync(join(path, "test"));
    writeFileSync(join(path, "src", "loop.ts"), "if (turns >= maxTurns) stop();\nlog(turns);\nlog(turns);\n");
    writeFileSync(
      join(path, "test", "loop.test.ts"),
      'it("stops after maxTurns calls", () => {});\nit.each([1, 2])(\n  "counts %s (twice)", () => {});\n',
    );
    return { folder: "s09-made-up", path };
  }

  const good: Exercise = {
    id: 1,
    file: "src/loop.ts",
    find: "turns >= maxTurns",
    replace: "turns > maxTurns",
    test: "stops after maxTurns",
    expect: "fail",
  };
  const messages = (value: unknown) => checkManifest(chapter(), value).problems.map((p) => p.message);

  it("accepts a well-formed manifest", () => {
    expect(messages([good, { ...good, id: 2, test: "test/loop.test.ts", expect: "pass" }])).toEqual([]);
  });

  it("wants a list of at least one exercise", () => {
    expect(messages(undefined)).toEqual([
      "test/exercises.ts must export `exercises`, a list with at least one exercise",
    ]);
    expect(messages([])).toHaveLength(1);
  });

  it("wants find exactly once in the file", () => {
    expect(messages([{ ...good, find: "log(turns);" }])).toEqual([
      "test/exercises.ts, exercise 1: find occurs 2 times in src/loop.ts; it must occur exactly once",
    ]);
    expect(messages([{ ...good, find: "not there" }])[0]).toMatch(/find occurs 0 times/);
  });

  it("wants ids counted from 1, a known outcome, an existing file and a change", () => {
    expect(messages([{ ...good, id: 2 }])[0]).toMatch(/id is 2; ids count 1, 2, 3/);
    expect(messages([{ ...good, expect: "red" }])[0]).toMatch(/expect is "red"/);
    expect(messages([{ ...good, file: "src/none.ts" }])[0]).toMatch(/src\/none.ts does not exist/);
    expect(messages([{ ...good, replace: good.find }])[0]).toMatch(/changes nothing/);
  });

  it("knows two kinds: a build exercise (its stub turns its test red) and a mutation one (no kind)", () => {
    expect(
      messages([
        { ...good, kind: "build" },
        { ...good, id: 2 },
      ]),
    ).toEqual([]);
    expect(messages([{ ...good, kind: "stub" }])[0]).toMatch(/kind is "stub"; it is "build" or left out/);
    expect(messages([{ ...good, kind: "build", expect: "pass" }])[0]).toMatch(
      /a build exercise's stub turns its test red/,
    );
  });

  it("wants a test name that picks a test, read as vitest reads it: a pattern", () => {
    expect(messages([{ ...good, test: "no such test" }])[0]).toMatch(/no test in test\/\*\.test\.ts is named like/);
    // "(twice)" as a pattern is a group: it does not match the parentheses of the name
    expect(messages([{ ...good, test: "counts %s (twice)" }])[0]).toMatch(/is named like/);
    expect(messages([{ ...good, test: "counts %s" }])).toEqual([]);
    expect(messages([{ ...good, test: 'say "hi"' }])[0]).toMatch(/a shell would read/);
  });

  it("reads the names of it, it.each and test calls", () => {
    expect(testNames(chapter().path)).toEqual(["stops after maxTurns calls", "counts %s (twice)"]);
  });
});

describe("exerciseCommand", () => {
  it("filters the chapter's test script by name, or by file", () => {
    expect(exerciseCommand("@harness/s01-agent-loop", { test: "never runs the cut tool_use" })).toBe(
      'pnpm --filter @harness/s01-agent-loop test -t "never runs the cut tool_use"',
    );
    expect(exerciseCommand("@harness/s01-agent-loop", { test: "test/agent-loop.test.ts" })).toBe(
      "pnpm --filter @harness/s01-agent-loop test test/agent-loop.test.ts",
    );
  });
});

describe("writtenExercises and writtenExerciseProblems", () => {
  const command = 'pnpm --filter @harness/s09-made-up test -t "stops after maxTurns"';
  const text = [
    "# s09",
    "## Exercises",
    "1. **Off by one.** Change `>=` to `>`. Run:",
    "",
    "   ```sh",
    `   ${command}`,
    "   2. not an exercise: inside a code block",
    "   ```",
    "",
    "2. **Another.** Run `pnpm --filter @harness/s09-made-up test test/loop.test.ts`.",
    "## What comes next",
    "3. not an exercise: another section",
  ].join("\n");
  const exercises: Exercise[] = [
    { id: 1, file: "src/loop.ts", find: "a", replace: "b", test: "stops after maxTurns", expect: "fail" },
    { id: 2, file: "src/loop.ts", find: "c", replace: "d", test: "test/loop.test.ts", expect: "pass" },
  ];
  const check = (markdown: string, list: Exercise[] | undefined) =>
    writtenExerciseProblems({ folder: "s09-made-up" }, "@harness/s09-made-up", "README.md", markdown, list).map(
      (p) => p.message,
    );

  it("reads the numbered exercises of the section, code blocks inside them included", () => {
    const items = writtenExercises(text, "## Exercises");
    expect(items?.map((item) => item.number)).toEqual([1, 2]);
    expect(items?.[0].text).toContain(command);
    expect(writtenExercises(text, "## 练习")).toBeUndefined();
  });

  it("ends an exercise at a ### heading: the questions after the exercises are not part of the last one", () => {
    const items = writtenExercises(`${text.replace("## What comes next", "### Questions\n\n- Why?")}`, "## Exercises");
    expect(items?.at(-1)?.text).not.toContain("Why?");
  });

  it("finds nothing wrong when each exercise shows its command", () => {
    expect(check(text, exercises)).toEqual([]);
  });

  it("names an exercise that does not show its command", () => {
    expect(check(text.replace(command, "pnpm test"), exercises)).toEqual([
      `README.md: exercise 1 does not show its command: ${command}`,
    ]);
  });

  it("wants one written exercise per manifest entry, and a manifest for a written section", () => {
    expect(check(text, exercises.slice(0, 1))[0]).toMatch(/numbered 1, 2; test\/exercises.ts has 1/);
    expect(check(text, undefined)).toEqual([
      "README.md: has an exercises section but the chapter has no test/exercises.ts to check it",
    ]);
    expect(check("# s09\n## Try it\n", undefined)).toEqual([]);
  });
});

describe("exerciseOutcome", () => {
  const report = (failed: number, passed: number, message = ""): VitestReport => ({
    numFailedTests: failed,
    numPassedTests: passed,
    testResults: [{ name: "/x/test/a.test.ts", status: failed > 0 || message ? "failed" : "passed", message }],
  });

  it("holds a red test as a fail, and a green one as a pass", () => {
    expect(exerciseOutcome({ exitCode: 1, report: report(2, 0) }, "fail")).toEqual({
      ok: true,
      summary: "red as expected: 2 failed, 0 passed",
    });
    expect(exerciseOutcome({ exitCode: 0, report: report(0, 1) }, "pass").ok).toBe(true);
  });

  it("does not hold a change that leaves the test green as a fail", () => {
    expect(exerciseOutcome({ exitCode: 0, report: report(0, 1) }, "fail").ok).toBe(false);
    expect(exerciseOutcome({ exitCode: 1, report: report(1, 0) }, "pass").ok).toBe(false);
  });

  it("does not hold a test file that broke before its tests ran as a fail", () => {
    const broken = report(0, 0, "Transform failed with 1 error:\n[PARSE_ERROR] Expected a semicolon");
    expect(exerciseOutcome({ exitCode: 1, report: broken }, "fail")).toEqual({
      ok: false,
      summary:
        "a test file failed before its tests ran (Transform failed with 1 error: [PARSE_ERROR] Expected a semicolon); 0 failed, 0 passed",
    });
  });

  it("does not hold a run with no test, no report or a kill", () => {
    expect(exerciseOutcome({ exitCode: 0, report: report(0, 0) }, "pass").summary).toBe(
      "expected the test to pass, but no test ran",
    );
    expect(exerciseOutcome({ exitCode: 1, report: undefined }, "fail").ok).toBe(false);
    expect(exerciseOutcome({ exitCode: null, report: report(1, 0) }, "fail").ok).toBe(false);
  });
});

describe("stubOutcome and referenceOutcome (a build exercise)", () => {
  /** A whole-suite report: tests by file, each `[full name, status]`. */
  const suite = (files: Record<string, [string, "passed" | "failed"][]>, message = ""): VitestReport => {
    const all = Object.values(files).flat();
    return {
      numFailedTests: all.filter(([, status]) => status === "failed").length,
      numPassedTests: all.filter(([, status]) => status === "passed").length,
      testResults: Object.entries(files).map(([name, tests]) => ({
        name: `/x/test/${name}`,
        status: tests.some(([, status]) => status === "failed") || message ? "failed" : "passed",
        message,
        assertionResults: tests.map(([fullName, status]) => ({ fullName, status })),
      })),
    };
  };
  const red = suite({
    "loop.test.ts": [
      ["agentLoop stops when the model ends its turn", "failed"],
      ["agentLoop runs a tool", "passed"],
    ],
    "main.test.ts": [["pnpm s01 prints the answer", "passed"]],
  });

  it("holds a stub that turns the named test red and nothing else", () => {
    expect(stubOutcome({ exitCode: 1, report: red }, "stops when the model ends")).toEqual({
      ok: true,
      summary: "the stub turns 1 named test(s) red and nothing else: 1 failed, 2 passed",
    });
    expect(stubOutcome({ exitCode: 1, report: red }, "test/loop.test.ts").ok).toBe(true);
  });

  it("does not hold a stub that breaks a test it does not name", () => {
    const both = suite({
      "loop.test.ts": [["agentLoop stops when the model ends its turn", "failed"]],
      "main.test.ts": [["pnpm s01 prints the answer", "failed"]],
    });
    expect(stubOutcome({ exitCode: 1, report: both }, "stops when the model ends")).toEqual({
      ok: false,
      summary: 'the stub breaks 1 test(s) the exercise does not name: "pnpm s01 prints the answer"',
    });
    expect(stubOutcome({ exitCode: 1, report: both }, "test/loop.test.ts").ok).toBe(false);
  });

  it("does not hold a stub that leaves every test green, breaks a file before it runs, or does not run", () => {
    const green = suite({ "loop.test.ts": [["agentLoop stops when the model ends its turn", "passed"]] });
    expect(stubOutcome({ exitCode: 0, report: green }, "stops").summary).toBe(
      "the stub leaves every test green (vitest exited 0: 0 failed, 1 passed)",
    );
    const broken = suite({ "loop.test.ts": [] }, "SyntaxError: Unexpected token");
    expect(stubOutcome({ exitCode: 1, report: broken }, "stops").summary).toMatch(
      /^a test file failed before its tests ran/,
    );
    expect(stubOutcome({ exitCode: 2, report: undefined }, "stops").ok).toBe(false);
    expect(stubOutcome({ exitCode: null, report: red }, "stops").ok).toBe(false);
  });

  it("holds the reference when the whole suite passes, and not when any test fails or none ran", () => {
    const green = suite({ "loop.test.ts": [["agentLoop stops when the model ends its turn", "passed"]] });
    expect(referenceOutcome({ exitCode: 0, report: green })).toEqual({
      ok: true,
      summary: "the whole suite green: 0 failed, 1 passed",
    });
    expect(referenceOutcome({ exitCode: 1, report: red }).ok).toBe(false);
    expect(referenceOutcome({ exitCode: 0, report: suite({}) }).ok).toBe(false);
  });
});
