import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCAL_SETTINGS, PROJECT_SETTINGS } from "@harness/s05-permissions";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sessionStartInput } from "../src/runner/hook-input.ts";
import { loadHooks } from "../src/runner/load-hooks.ts";
import { runHooks } from "../src/runner/run-hooks.ts";
import { decideTrust, TRUST_FILE, type TrustAnswer, trustHooks, trustState } from "../src/runner/trust.ts";

let root: string;
let project: string;
let home: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "trust-")));
  project = join(root, "cloned-repo");
  home = join(root, "harness-home");
  mkdirSync(join(project, ".harness"), { recursive: true });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const projectHooks = (command: string) => ({
  hooks: { SessionStart: [{ hooks: [{ type: "command", command, timeout: 10 }] }] },
});
const writeSettings = (file: string, value: unknown, spacing?: number) =>
  writeFileSync(join(project, file), JSON.stringify(value, null, spacing));

/** An ask that records its questions and gives `answer`. */
function asker(answer: TrustAnswer) {
  const questions: string[] = [];
  const ask = async (question: string) => {
    questions.push(question);
    return answer;
  };
  return { questions, ask };
}

describe("trust", () => {
  it("has nothing to trust in a project without hooks, and writes nothing", async () => {
    writeSettings(LOCAL_SETTINGS, projectHooks("echo mine"));
    const loaded = loadHooks(project);
    expect(trustState(project, loaded, { home }).status).toBe("none");
    expect(await decideTrust(project, loaded, { home })).toEqual({ runProjectHooks: true });
    expect(existsSync(home)).toBe(false);
  });

  it("does not run untrusted project hooks without a terminal, and says so in one line", async () => {
    writeSettings(PROJECT_SETTINGS, projectHooks("touch pwned"));
    writeSettings(LOCAL_SETTINGS, projectHooks("touch mine"));
    const loaded = loadHooks(project);
    const decision = await decideTrust(project, loaded, { home });
    expect(decision).toEqual({
      runProjectHooks: false,
      notice:
        "hooks: 1 project hook in .harness/settings.json not run: not trusted yet (start the harness at a terminal to review them)",
    });
    await runHooks(loaded.hooks, sessionStartInput({ sessionId: "s", cwd: project }), {
      cwd: project,
      runProjectHooks: decision.runProjectHooks,
    });
    expect(existsSync(join(project, "pwned"))).toBe(false);
    expect(existsSync(join(project, "mine"))).toBe(true);
  });

  it("shows the user every command it would run, and runs them for this session on yes, remembering nothing", async () => {
    writeSettings(PROJECT_SETTINGS, projectHooks("./scripts/setup.sh"));
    const loaded = loadHooks(project);
    const { questions, ask } = asker("yes");
    expect(await decideTrust(project, loaded, { home, ask })).toEqual({ runProjectHooks: true });
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain("SessionStart: ./scripts/setup.sh   (.harness/settings.json)");
    expect(trustState(project, loaded, { home }).status).toBe("untrusted");
  });

  it("runs nothing on no", async () => {
    writeSettings(PROJECT_SETTINGS, projectHooks("touch x"));
    expect(await decideTrust(project, loadHooks(project), { home, ask: asker("no").ask })).toEqual({
      runProjectHooks: false,
      notice: "hooks: 1 project hook not run (you said no)",
    });
  });

  it("counts an ask that fails as no", async () => {
    writeSettings(PROJECT_SETTINGS, projectHooks("touch x"));
    const ask = () => Promise.reject(new Error("the terminal went away"));
    expect((await decideTrust(project, loadHooks(project), { home, ask })).runProjectHooks).toBe(false);
  });

  it("remembers always outside the repository, and asks no more while the hooks stay the same", async () => {
    writeSettings(PROJECT_SETTINGS, projectHooks("./scripts/setup.sh"));
    const loaded = loadHooks(project);
    expect(await decideTrust(project, loaded, { home, ask: asker("always").ask })).toEqual({ runProjectHooks: true });
    expect(readdirSync(join(project, ".harness"))).toEqual(["settings.json"]);
    const stored = JSON.parse(readFileSync(join(home, TRUST_FILE), "utf8"));
    expect(Object.keys(stored.projects)).toEqual([project]);

    const { questions, ask } = asker("no");
    expect(await decideTrust(project, loadHooks(project), { home, ask })).toEqual({ runProjectHooks: true });
    expect(questions).toEqual([]);
  });

  it("is broken by any change to a trusted hook", async () => {
    writeSettings(PROJECT_SETTINGS, projectHooks("./scripts/setup.sh"));
    trustHooks(project, loadHooks(project), { home });
    expect(trustState(project, loadHooks(project), { home }).status).toBe("trusted");

    writeSettings(PROJECT_SETTINGS, projectHooks("./scripts/setup.sh "));
    const changed = loadHooks(project);
    expect(trustState(project, changed, { home }).status).toBe("changed");
    expect(await decideTrust(project, changed, { home })).toMatchObject({
      runProjectHooks: false,
      notice: expect.stringContaining("changed since you trusted them"),
    });
  });

  it("is broken by a new hook, a new timeout or a new matcher", () => {
    const base = { matcher: "bash", hooks: [{ type: "command", command: "./check.sh" }] };
    writeSettings(PROJECT_SETTINGS, { hooks: { PreToolUse: [base] } });
    trustHooks(project, loadHooks(project), { home });
    for (const edited of [
      { PreToolUse: [base, { hooks: [{ type: "command", command: "./more.sh" }] }] },
      { PreToolUse: [{ ...base, hooks: [{ ...base.hooks[0], timeout: 5 }] }] },
      { PreToolUse: [{ ...base, matcher: "*" }] },
    ]) {
      writeSettings(PROJECT_SETTINGS, { hooks: edited });
      expect(trustState(project, loadHooks(project), { home }).status).toBe("changed");
    }
  });

  it("survives reformatting: the same definitions, other spacing and key order, stay trusted", () => {
    writeSettings(PROJECT_SETTINGS, { hooks: { Stop: [{ hooks: [{ type: "command", command: "pnpm test" }] }] } });
    trustHooks(project, loadHooks(project), { home });
    writeSettings(
      PROJECT_SETTINGS,
      { permissions: { allow: [] }, hooks: { Stop: [{ hooks: [{ command: "pnpm test", type: "command" }] }] } },
      4,
    );
    expect(trustState(project, loadHooks(project), { home }).status).toBe("trusted");
  });

  it("is kept per project: the same hooks in another clone are not trusted", () => {
    writeSettings(PROJECT_SETTINGS, projectHooks("./setup.sh"));
    trustHooks(project, loadHooks(project), { home });
    const other = join(root, "other-clone");
    mkdirSync(join(other, ".harness"), { recursive: true });
    writeFileSync(join(other, PROJECT_SETTINGS), JSON.stringify(projectHooks("./setup.sh")));
    expect(trustState(other, loadHooks(other), { home }).status).toBe("untrusted");
  });

  it("trusts nothing when the trust file is unreadable", () => {
    writeSettings(PROJECT_SETTINGS, projectHooks("./setup.sh"));
    mkdirSync(home);
    writeFileSync(join(home, TRUST_FILE), "{not json");
    expect(trustState(project, loadHooks(project), { home }).status).toBe("untrusted");
  });

  it("keeps trust in $HARNESS_HOME by default", () => {
    writeSettings(PROJECT_SETTINGS, projectHooks("./setup.sh"));
    const saved = process.env.HARNESS_HOME;
    process.env.HARNESS_HOME = home;
    try {
      trustHooks(project, loadHooks(project));
      expect(existsSync(join(home, TRUST_FILE))).toBe(true);
      expect(trustState(project, loadHooks(project)).status).toBe("trusted");
    } finally {
      if (saved === undefined) delete process.env.HARNESS_HOME;
      else process.env.HARNESS_HOME = saved;
    }
  });
});
