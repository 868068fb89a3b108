/**
 * One trust rule for what a project ships that widens what runs (`decideTrust`): asked at a
 * terminal, kept outside the repository per project and per kind, broken by any change, and
 * without a terminal nothing untrusted applies, said in one line.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  decideTrust,
  type Shipped,
  TRUST_FILE,
  type TrustAnswer,
  trustedKinds,
  trustProject,
} from "../src/project-trust.ts";

let root: string;
let project: string;
let home: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "trust-")));
  project = join(root, "cloned-repo");
  home = join(root, "harness-home");
  mkdirSync(project);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** What a project ships of one kind: these allow rules, say. */
const shipped = (kind: string, ...rules: string[]): Shipped => ({
  kind,
  definitions: rules,
  lines: rules.map((rule) => `allow ${rule}   (.harness/settings.json)`),
  summary: `${rules.length} allow rule${rules.length === 1 ? "" : "s"} in .harness/settings.json`,
});

/** An ask that records its questions and gives `answer`. */
function asker(answer: TrustAnswer) {
  const questions: string[] = [];
  const ask = async (question: string) => {
    questions.push(question);
    return answer;
  };
  return { questions, ask };
}

describe("decideTrust", () => {
  it("has nothing to trust when nothing is shipped, asks nothing and writes nothing", async () => {
    const { questions, ask } = asker("no");
    expect(await decideTrust(project, [shipped("permissions")], { home, ask })).toEqual({ trusted: [] });
    expect(questions).toEqual([]);
    expect(existsSync(home)).toBe(false);
  });

  it("applies nothing untrusted without a terminal, and says what it left out in one line", async () => {
    expect(await decideTrust(project, [shipped("permissions", "Bash(rm:*)"), shipped("hooks", "x")], { home })).toEqual(
      {
        trusted: [],
        notice:
          "project settings not applied (not trusted yet): 1 allow rule in .harness/settings.json; 1 allow rule in .harness/settings.json; start the harness at a terminal to review them",
      },
    );
  });

  it("shows every thing it would apply in one question, and applies them for this session on yes, remembering nothing", async () => {
    const { questions, ask } = asker("yes");
    const both = [shipped("permissions", "Bash(npm test)"), shipped("hooks", "Bash(make)")];
    expect(await decideTrust(project, both, { home, ask })).toEqual({ trusted: ["permissions", "hooks"] });
    expect(questions).toEqual([
      "This project ships settings that let more run, not trusted yet. They apply as you, on this machine:\n" +
        "  allow Bash(npm test)   (.harness/settings.json)\n" +
        "  allow Bash(make)   (.harness/settings.json)\n" +
        "Apply them? yes (this session) / no / always (until they change)",
    ]);
    expect(trustedKinds(project, both, { home })).toEqual([]);
  });

  it("applies nothing on no, and says so", async () => {
    expect(await decideTrust(project, [shipped("permissions", "Bash")], { home, ask: asker("no").ask })).toEqual({
      trusted: [],
      notice: "project settings not applied (you said no): 1 allow rule in .harness/settings.json",
    });
  });

  it("counts an ask that fails as no", async () => {
    const ask = () => Promise.reject(new Error("the terminal went away"));
    expect((await decideTrust(project, [shipped("permissions", "Bash")], { home, ask })).trusted).toEqual([]);
  });

  it("remembers always outside the repository, and asks no more while the definitions stay the same", async () => {
    const rules = shipped("permissions", "Bash(npm test)");
    expect(await decideTrust(project, [rules], { home, ask: asker("always").ask })).toEqual({
      trusted: ["permissions"],
    });
    const stored = JSON.parse(readFileSync(join(home, TRUST_FILE), "utf8"));
    expect(Object.keys(stored.projects)).toEqual([project]);
    const { questions, ask } = asker("no");
    expect(await decideTrust(project, [shipped("permissions", "Bash(npm test)")], { home, ask })).toEqual({
      trusted: ["permissions"],
    });
    expect(questions).toEqual([]);
  });

  it("is broken by any change, and says the definitions changed", async () => {
    trustProject(project, [shipped("permissions", "Bash(npm test)")], { home });
    expect(await decideTrust(project, [shipped("permissions", "Bash(npm test:*)")], { home })).toMatchObject({
      trusted: [],
      notice: expect.stringContaining("(changed since you trusted them)"),
    });
  });

  it("keeps one hash per kind: trusting one kind leaves another's trust as it was, and asks only about what is new", async () => {
    const rules = shipped("permissions", "Bash(npm test)");
    trustProject(project, [rules], { home });
    const hooks = shipped("hooks", "Bash(make)");
    const { questions, ask } = asker("always");
    expect(await decideTrust(project, [rules, hooks], { home, ask })).toEqual({ trusted: ["permissions", "hooks"] });
    expect(questions[0]).not.toContain("npm test");
    expect(trustedKinds(project, [rules], { home })).toEqual(["permissions"]);
    expect(trustedKinds(project, [rules, hooks], { home })).toEqual(["permissions", "hooks"]);
  });

  it("hashes the definitions, not their spacing or key order", () => {
    trustProject(project, [{ ...shipped("hooks"), definitions: { b: 1, a: [2, { d: 3, c: 4 }] } }], { home });
    const same = { ...shipped("hooks"), definitions: { a: [2, { c: 4, d: 3 }], b: 1 } };
    expect(trustedKinds(project, [same], { home })).toEqual(["hooks"]);
  });

  it("is kept per project: the same settings in another clone are not trusted", () => {
    trustProject(project, [shipped("permissions", "Bash")], { home });
    const other = join(root, "other-clone");
    mkdirSync(other);
    expect(trustedKinds(other, [shipped("permissions", "Bash")], { home })).toEqual([]);
  });

  it("trusts nothing when the trust file is unreadable", () => {
    mkdirSync(home);
    writeFileSync(join(home, TRUST_FILE), "{not json");
    expect(trustedKinds(project, [shipped("permissions", "Bash")], { home })).toEqual([]);
  });

  it("keeps trust in $HARNESS_HOME by default", () => {
    const saved = process.env.HARNESS_HOME;
    process.env.HARNESS_HOME = home;
    try {
      trustProject(project, [shipped("permissions", "Bash")]);
      expect(existsSync(join(home, TRUST_FILE))).toBe(true);
      expect(trustedKinds(project, [shipped("permissions", "Bash")])).toEqual(["permissions"]);
    } finally {
      if (saved === undefined) delete process.env.HARNESS_HOME;
      else process.env.HARNESS_HOME = saved;
    }
  });
});
