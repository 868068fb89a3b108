/**
 * A session's hooks, started once before its first prompt (`startHooks`): loaded from the
 * project's settings files; what the project ships (hooks and permissions) trusted or not, in one
 * question asked only when there is someone to ask; SessionStart run and told whether the session
 * is new or resumed.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCliArgs } from "@harness/cli";
import {
  PERMISSION_FLAGS,
  PROJECT_SETTINGS,
  readPermissions,
  type TrustAnswer,
  trustedKinds,
  trustProject,
} from "@harness/s05-permissions";
import { cleanUpAfter } from "@harness/testkit";
import { beforeEach, describe, expect, it } from "vitest";
import { loadHooks } from "../src/runner/load-hooks.ts";
import { shippedHooks, startHooks } from "../src/start-hooks.ts";

/** Settings with one group of `command` hooks on `event`. */
const hooked = (event: string, command: string) =>
  JSON.stringify({ hooks: { [event]: [{ hooks: [{ type: "command", command }] }] } });

/** A project holding `files` (path → text). */
function project(files: Record<string, string> = {}): string {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "s06-start-")));
  cleanUpAfter(() => rmSync(cwd, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(cwd, path, ".."), { recursive: true });
    writeFileSync(join(cwd, path), text);
  }
  return cwd;
}

/** Start the hooks of `cwd`; `answer` is what the user at the terminal says (no terminal without it). */
async function start(cwd: string, answer?: TrustAnswer, transcriptPath?: string) {
  const notices: string[] = [];
  const asked: { question: string; choices: readonly TrustAnswer[] }[] = [];
  const ask = answer
    ? async (question: string, choices: readonly TrustAnswer[]) => {
        asked.push({ question, choices });
        return answer;
      }
    : undefined;
  const started = await startHooks({
    session: { sessionId: "s06-start", cwd },
    permissions: readPermissions(parseCliArgs(["go"], { cwd }, [...PERMISSION_FLAGS])),
    transcriptPath,
    ask,
    say: (line) => notices.push(line),
  });
  return { started, notices, asked };
}

beforeEach(() => {
  // the trust file lives in the harness home: one of the test's own
  const saved = process.env.HARNESS_HOME;
  process.env.HARNESS_HOME = project();
  return () => {
    if (saved === undefined) delete process.env.HARNESS_HOME;
    else process.env.HARNESS_HOME = saved;
  };
});

describe("startHooks", () => {
  it("asks nothing and runs nothing when no hook is loaded", async () => {
    const { started, notices, asked } = await start(project(), "yes");
    expect(started).toMatchObject({ hooks: [], runProjectHooks: false, context: [] });
    expect(notices).toEqual([]);
    expect(asked).toEqual([]);
  });

  it("says each hook that cannot be loaded in one line, and starts the rest", async () => {
    const settings = {
      hooks: {
        PreToolUse: [{ hooks: [{ type: "command" }] }],
        ...JSON.parse(hooked("SessionStart", "echo started")).hooks,
      },
    };
    const cwd = project({ ".harness/settings.local.json": JSON.stringify(settings) });
    const { started, notices } = await start(cwd);
    expect(started.hooks.map((hook) => hook.event)).toEqual(["SessionStart"]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^hooks: .*settings\.local\.json/);
    expect(started.context).toEqual(["started"]);
  });

  it("asks whether to trust the project's hooks; yes runs SessionStart, and what it printed is kept for the model", async () => {
    const cwd = project({ ".harness/settings.json": hooked("SessionStart", "touch ran; echo 'branch: main'") });
    const { started, notices, asked } = await start(cwd, "yes");
    expect(asked).toHaveLength(1);
    expect(asked[0].question).toContain("SessionStart hook: touch ran; echo 'branch: main'   (.harness/settings.json)");
    expect(asked[0].choices).toEqual(["yes", "no", "always"]);
    expect(started.runProjectHooks).toBe(true);
    expect(started.context).toEqual(["branch: main"]);
    expect(existsSync(join(cwd, "ran"))).toBe(true);
    expect(notices).toEqual([]);
  });

  it("runs no project hook when the user says no, and says so", async () => {
    const cwd = project({ ".harness/settings.json": hooked("SessionStart", "touch ran") });
    const { started, notices } = await start(cwd, "no");
    expect(started.runProjectHooks).toBe(false);
    expect(existsSync(join(cwd, "ran"))).toBe(false);
    expect(notices).toEqual(["project settings not applied (you said no): 1 hook in .harness/settings.json"]);
  });

  it("runs no untrusted project hook with no one to ask, and says so in one line", async () => {
    const cwd = project({ ".harness/settings.json": hooked("SessionStart", "touch ran") });
    const { started, notices } = await start(cwd);
    expect(started.runProjectHooks).toBe(false);
    expect(existsSync(join(cwd, "ran"))).toBe(false);
    expect(notices).toEqual([
      "project settings not applied (not trusted yet): 1 hook in .harness/settings.json; start the harness at a terminal to review them",
    ]);
  });

  it("tells SessionStart whether the session is new or resumed, and where a resumed one's transcript is", async () => {
    const cwd = project({
      ".harness/settings.local.json": hooked("SessionStart", "cat >> starts.jsonl; echo >> starts.jsonl"),
    });
    await start(cwd);
    await start(cwd, undefined, "/tmp/sessions/s06-start.jsonl");
    const starts = readFileSync(join(cwd, "starts.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line));
    expect(starts.map((input) => [input.source, input.transcript_path, input.session_id])).toEqual([
      ["startup", undefined, "s06-start"],
      ["resume", "/tmp/sessions/s06-start.jsonl", "s06-start"],
    ]);
  });

  it("asks once about the project's permissions and hooks together; yes applies both", async () => {
    const cwd = project({
      [PROJECT_SETTINGS]: JSON.stringify({
        permissions: { allow: ["Bash(touch:*)"], defaultMode: "acceptEdits" },
        ...JSON.parse(hooked("SessionStart", "touch ran")),
      }),
    });
    const { started, asked } = await start(cwd, "yes");
    expect(asked.map((one) => one.question.split("\n").slice(1, -1))).toEqual([
      [
        "  defaultMode acceptEdits   (.harness/settings.json)",
        "  allow Bash(touch:*)   (.harness/settings.json)",
        "  SessionStart hook: touch ran   (.harness/settings.json)",
      ],
    ]);
    expect(started.mode).toBe("acceptEdits");
    expect(started.settings.rules.map((rule) => rule.rule.text)).toContain("Bash(touch:*)");
    expect(existsSync(join(cwd, "ran"))).toBe(true);
  });

  it("applies neither the project's permissions nor its hooks on no", async () => {
    const cwd = project({
      [PROJECT_SETTINGS]: JSON.stringify({
        permissions: { allow: ["Bash(touch:*)"] },
        ...JSON.parse(hooked("SessionStart", "touch ran")),
      }),
    });
    const { started, notices } = await start(cwd, "no");
    expect(notices).toEqual([
      "project settings not applied (you said no): 1 allow rule in .harness/settings.json; 1 hook in .harness/settings.json",
    ]);
    expect(started.mode).toBe("default");
    expect(started.settings.rules.map((rule) => rule.rule.text)).not.toContain("Bash(touch:*)");
    expect(existsSync(join(cwd, "ran"))).toBe(false);
  });
});

describe("shippedHooks", () => {
  const home = () => process.env.HARNESS_HOME;

  it("is broken by a new hook, a new timeout or a new matcher", () => {
    const base = { matcher: "bash", hooks: [{ type: "command", command: "./check.sh" }] };
    const cwd = project({ [PROJECT_SETTINGS]: JSON.stringify({ hooks: { PreToolUse: [base] } }) });
    trustProject(cwd, [shippedHooks(loadHooks(cwd))], { home: home() });
    for (const edited of [
      { PreToolUse: [base, { hooks: [{ type: "command", command: "./more.sh" }] }] },
      { PreToolUse: [{ ...base, hooks: [{ ...base.hooks[0], timeout: 5 }] }] },
      { PreToolUse: [{ ...base, matcher: "*" }] },
    ]) {
      writeFileSync(join(cwd, PROJECT_SETTINGS), JSON.stringify({ hooks: edited }));
      expect(trustedKinds(cwd, [shippedHooks(loadHooks(cwd))], { home: home() })).toEqual([]);
    }
  });

  it("survives reformatting and other keys: the same hook definitions stay trusted", () => {
    const cwd = project({
      [PROJECT_SETTINGS]: JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "pnpm test" }] }] } }),
    });
    trustProject(cwd, [shippedHooks(loadHooks(cwd))], { home: home() });
    writeFileSync(
      join(cwd, PROJECT_SETTINGS),
      JSON.stringify(
        { permissions: { deny: [] }, hooks: { Stop: [{ hooks: [{ command: "pnpm test", type: "command" }] }] } },
        null,
        4,
      ),
    );
    expect(trustedKinds(cwd, [shippedHooks(loadHooks(cwd))], { home: home() })).toEqual(["hooks"]);
  });
});
