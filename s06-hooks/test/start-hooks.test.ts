/**
 * A session's hooks, started once before its first prompt (`startHooks`): loaded from the
 * project's settings files, the project's trusted or not (asked only when there is someone to
 * ask), SessionStart run and told whether the session is new or resumed.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanUpAfter } from "@harness/testkit";
import { beforeEach, describe, expect, it } from "vitest";
import type { TrustAnswer } from "../src/runner/trust.ts";
import { startHooks } from "../src/start-hooks.ts";

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
    transcriptPath,
    ask,
    notice: (line) => notices.push(line),
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
    expect(notices[0]).toContain("settings.local.json");
    expect(started.context).toEqual(["started"]);
  });

  it("asks whether to trust the project's hooks; yes runs SessionStart, and what it printed is kept for the model", async () => {
    const cwd = project({ ".harness/settings.json": hooked("SessionStart", "touch ran; echo 'branch: main'") });
    const { started, notices, asked } = await start(cwd, "yes");
    expect(asked).toHaveLength(1);
    expect(asked[0].question).toContain("SessionStart: touch ran; echo 'branch: main'   (.harness/settings.json)");
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
    expect(notices).toEqual(["1 project hook not run (you said no)"]);
  });

  it("runs no untrusted project hook with no one to ask, and says so in one line", async () => {
    const cwd = project({ ".harness/settings.json": hooked("SessionStart", "touch ran") });
    const { started, notices } = await start(cwd);
    expect(started.runProjectHooks).toBe(false);
    expect(existsSync(join(cwd, "ran"))).toBe(false);
    expect(notices).toEqual([
      "1 project hook in .harness/settings.json not run: not trusted yet (start the harness at a terminal to review them)",
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
});
