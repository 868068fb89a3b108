import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolCall } from "@harness/shared";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { continueAfterStop } from "../src/continue-after-stop.ts";
import { combinePermission } from "../src/runner/combine-permission.ts";
import {
  type HookSession,
  postToolUseInput,
  preToolUseInput,
  sessionStartInput,
  stopInput,
  userPromptInput,
} from "../src/runner/hook-input.ts";
import { runHooks } from "../src/runner/run-hooks.ts";
import { commandHook } from "./command-hook.ts";

let cwd: string;
let session: HookSession;
const push: ToolCall = { id: "toolu_1", name: "bash", input: { command: "git push origin main" } };

beforeEach(() => {
  cwd = realpathSync(mkdtempSync(join(tmpdir(), "run-hooks-")));
  session = { sessionId: "s", cwd };
});

afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const options = () => ({ cwd, runProjectHooks: true });

describe("runHooks", () => {
  describe("exit 2 blocks, with stderr as the reason", () => {
    it("PreToolUse: the call is denied, whatever the rules allowed", async () => {
      const verdict = await runHooks(
        [commandHook("echo 'no pushing from the agent' >&2; exit 2", { matcher: "bash" })],
        preToolUseInput(session, push),
        options(),
      );
      expect(verdict.permission).toEqual({ behavior: "deny", reason: "no pushing from the agent" });
      expect(combinePermission({ behavior: "allow", rule: "bash(git push:*)" }, verdict)).toEqual({
        behavior: "deny",
        reason: "no pushing from the agent",
        decidedBy: "hooks",
      });
    });

    it("UserPromptSubmit: the prompt is blocked, the reason is for the user", async () => {
      const verdict = await runHooks(
        [
          commandHook("grep -q password && { echo 'the prompt holds a password' >&2; exit 2; }; exit 0", {
            event: "UserPromptSubmit",
          }),
        ],
        userPromptInput(session, "my password is hunter2"),
        options(),
      );
      expect(verdict.block).toBe("the prompt holds a password");
    });

    it("Stop: the loop goes on with stderr as the next user message", async () => {
      const verdict = await runHooks(
        [commandHook("echo 'the tests fail: fix them' >&2; exit 2", { event: "Stop" })],
        stopInput(session, false),
        options(),
      );
      expect(continueAfterStop(verdict, false)).toMatchObject({
        kind: "continue",
        message: "the tests fail: fix them",
      });
    });

    it("PostToolUse: the call already ran; the reason is for the model", async () => {
      const verdict = await runHooks(
        [commandHook("echo 'lint: 2 errors in a.ts' >&2; exit 2", { event: "PostToolUse" })],
        postToolUseInput(session, push, { content: "ok", isError: false }),
        options(),
      );
      expect(verdict.block).toBe("lint: 2 errors in a.ts");
    });
  });

  it("treats exit 1 as an error the user sees, and blocks nothing", async () => {
    const verdict = await runHooks(
      [commandHook("echo 'jq: command not found' >&2; exit 1", { matcher: "bash" })],
      preToolUseInput(session, push),
      options(),
    );
    expect(verdict.permission).toBeUndefined();
    expect(verdict.block).toBeUndefined();
    expect(verdict.notices).toEqual([
      "PreToolUse hook \"echo 'jq: command not found' >&2; exit 1\" failed (exit 1): jq: command not found",
    ]);
    expect(combinePermission({ behavior: "allow", rule: "bash(git push:*)" }, verdict).behavior).toBe("allow");
  });

  it("reads a JSON decision on exit 0", async () => {
    const output = {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: "a push",
      },
    };
    const verdict = await runHooks(
      [commandHook(`echo '${JSON.stringify(output)}'`, { matcher: "bash" })],
      preToolUseInput(session, push),
      options(),
    );
    expect(verdict.permission).toEqual({ behavior: "ask", reason: "a push" });
  });

  it("gives the model the plain stdout of SessionStart and UserPromptSubmit hooks as context", async () => {
    const start = await runHooks(
      [commandHook("echo 'branch: main'", { event: "SessionStart" })],
      sessionStartInput(session),
      options(),
    );
    expect(start.context).toEqual(["branch: main"]);
    const prompt = await runHooks(
      [
        commandHook(`echo '{"hookSpecificOutput": {"additionalContext": "today is Monday"}}'`, {
          event: "UserPromptSubmit",
        }),
      ],
      userPromptInput(session, "what day is it?"),
      options(),
    );
    expect(prompt.context).toEqual(["today is Monday"]);
  });

  it("starts no process when no hook matches", async () => {
    const verdict = await runHooks(
      [commandHook("touch ran", { matcher: "edit_file" })],
      preToolUseInput(session, push),
      options(),
    );
    expect(verdict).toEqual({ event: "PreToolUse", context: [], notices: [], runs: [] });
    expect(existsSync(join(cwd, "ran"))).toBe(false);
  });

  it("runs project hooks only when trusted, the user's own always", async () => {
    const hooks = [
      commandHook("touch project-ran", { source: "project", file: ".harness/settings.json" }),
      commandHook("touch local-ran"),
    ];
    const verdict = await runHooks(hooks, preToolUseInput(session, push), { cwd, runProjectHooks: false });
    expect(verdict.runs.map((run) => run.hook.command)).toEqual(["touch local-ran"]);
    expect(existsSync(join(cwd, "project-ran"))).toBe(false);
    expect(existsSync(join(cwd, "local-ran"))).toBe(true);
  });

  describe("several hooks on one event", { timeout: 60_000 }, () => {
    // a hook that waits for a file another hook writes: run one by one, the first would wait
    // until its timeout; run at once, they meet. Causality, not wall-clock thresholds.
    const waitFor = (file: string) => `until [ -e ${file} ]; do sleep 0.02; done`;

    it("runs them at once: every hook starts before any of them ends", async () => {
      // each hook writes when it started, waits until all four have started, writes when it ended
      const names = ["a", "b", "c", "d"];
      const hook = (name: string) =>
        commandHook(
          `echo "$(date +%s%N)" > ${name}.start; ${names.map((n) => waitFor(`${n}.start`)).join("; ")}; echo "$(date +%s%N)" > ${name}.end`,
          { timeoutMs: 30_000 },
        );
      const verdict = await runHooks(names.map(hook), preToolUseInput(session, push), options());
      expect(verdict.notices).toEqual([]);
      const stamp = (file: string) => Number(readFileSync(join(cwd, file), "utf8").trim());
      const lastStart = Math.max(...names.map((n) => stamp(`${n}.start`)));
      const firstEnd = Math.min(...names.map((n) => stamp(`${n}.end`)));
      expect(lastStart < firstEnd).toBe(true);
    });

    it("combines in config order, whichever finishes first: deny > ask > allow, every reason kept", async () => {
      // each hook waits for the next one's file, so they answer in reverse config order
      const decide = (behavior: string, reason: string, after: string) =>
        commandHook(
          `${after}; echo '{"hookSpecificOutput": {"permissionDecision": "${behavior}", "permissionDecisionReason": "${reason}", "additionalContext": "${reason}"}}'; touch ${reason}.done`,
          { timeoutMs: 30_000 },
        );
      const verdict = await runHooks(
        [
          decide("allow", "first", waitFor("second.done")),
          decide("deny", "second", waitFor("third.done")),
          commandHook(`${waitFor("fourth.done")}; echo third >&2; touch third.done; exit 2`, { timeoutMs: 30_000 }),
          decide("ask", "fourth", "true"),
        ],
        preToolUseInput(session, push),
        options(),
      );
      expect(verdict.notices).toEqual([]);
      expect(verdict.permission).toEqual({ behavior: "deny", reason: "second\nthird" });
      expect(verdict.context).toEqual(["first", "second", "fourth"]);
    });

    it("blocks when any one blocks, and keeps running the others' output", async () => {
      const verdict = await runHooks(
        [
          commandHook(`echo '{"systemMessage": "formatted a.ts"}'`, { event: "Stop" }),
          commandHook("echo 'tests fail' >&2; exit 2", { event: "Stop" }),
          commandHook("exit 1", { event: "Stop" }),
        ],
        stopInput(session, false),
        options(),
      );
      expect(verdict.block).toBe("tests fail");
      expect(verdict.notices).toEqual(["formatted a.ts", 'Stop hook "exit 1" failed (exit 1)']);
    });
  });

  it('stops the loop on "continue": false, with its stopReason for the user', async () => {
    const verdict = await runHooks(
      [commandHook(`echo '{"continue": false, "stopReason": "budget spent"}'`, { matcher: "bash" })],
      preToolUseInput(session, push),
      options(),
    );
    expect(verdict.stop).toBe("budget spent");
    expect(combinePermission({ behavior: "allow" }, verdict)).toEqual({
      behavior: "deny",
      reason: "budget spent",
      decidedBy: "hooks",
    });
  });
});
