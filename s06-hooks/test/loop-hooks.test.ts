/**
 * The seam main.ts hands the loop (`loopHooks`), on real command hooks: the context it starts with
 * goes with the first prompt sent and no other, and a Stop hook sends each prompt's run on once.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { cleanUpAfter } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { loopHooks } from "../src/loop-hooks.ts";
import type { HookCommand } from "../src/runner/load-hooks.ts";
import { commandHook } from "./command-hook.ts";

/** The seam on `hooks` in a fresh directory; the notices it tells are kept. */
function seamOn(hooks: HookCommand[], context?: string[]) {
  const cwd = mkdtempSync(join(tmpdir(), "s06-loop-hooks-"));
  cleanUpAfter(() => rmSync(cwd, { recursive: true, force: true }));
  const notices: string[] = [];
  const seam = loopHooks({
    hooks,
    session: { sessionId: "s", cwd },
    runProjectHooks: false,
    context,
    notice: (line) => notices.push(line),
  });
  return { cwd, seam, notices };
}

const never = new AbortController().signal;

describe("loopHooks", () => {
  it("sends the context it starts with (SessionStart's) with the first prompt sent, and with no later one", async () => {
    const { seam } = seamOn([], ["from SessionStart"]);
    const first: MessageParam[] = [{ role: "user", content: "hi" }];
    expect(await seam.submitPrompt(first, never)).toMatchObject({ kind: "sent" });
    expect(first[0].content).toEqual([
      { type: "text", text: "[SessionStart hook]\nfrom SessionStart" },
      { type: "text", text: "hi" },
    ]);
    const second: MessageParam[] = [{ role: "user", content: "and now?" }];
    await seam.submitPrompt(second, never);
    expect(second).toEqual([{ role: "user", content: "and now?" }]);
  });

  it("keeps that context for the next prompt when a prompt is blocked", async () => {
    const guard = commandHook("grep -q password && { echo 'a password' >&2; exit 2; }; exit 0", {
      event: "UserPromptSubmit",
    });
    const { seam, notices } = seamOn([guard], ["from SessionStart"]);
    const blocked: MessageParam[] = [{ role: "user", content: "my password is hunter2" }];
    expect(await seam.submitPrompt(blocked, never)).toMatchObject({ kind: "blocked", reason: "a password" });
    expect(blocked).toEqual([]);
    expect(notices).toEqual(["prompt blocked: a password"]);
    const next: MessageParam[] = [{ role: "user", content: "hi" }];
    await seam.submitPrompt(next, never);
    expect(next[0].content).toEqual([
      { type: "text", text: "[SessionStart hook]\nfrom SessionStart" },
      { type: "text", text: "hi" },
    ]);
  });

  it("lets a Stop hook send each prompt's run on once, and tells it when it already has", async () => {
    const record = "cat >> stops.jsonl; echo >> stops.jsonl; echo 'the tests fail' >&2; exit 2";
    const { cwd, seam, notices } = seamOn([commandHook(record, { event: "Stop" })]);
    const messages: MessageParam[] = [{ role: "user", content: "one" }];
    await seam.submitPrompt(messages, never);
    expect(await seam.stop(never)).toBe("the tests fail");
    expect(await seam.stop(never)).toBeUndefined(); // once per prompt: the answer stands
    await seam.submitPrompt([{ role: "user", content: "two" }], never);
    expect(await seam.stop(never)).toBe("the tests fail"); // a new prompt: once more
    const inputs = readFileSync(join(cwd, "stops.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line).stop_hook_active);
    expect(inputs).toEqual([false, true, false]);
    expect(notices).toEqual([
      "a Stop hook sent the loop on: the tests fail",
      "a Stop hook blocked again after the loop went on once for this prompt; the answer stands: the tests fail",
      "a Stop hook sent the loop on: the tests fail",
    ]);
  });

  it("runs no Stop hook once the run is aborted", async () => {
    const { cwd, seam } = seamOn([commandHook("touch stop-ran; exit 2", { event: "Stop" })]);
    const aborted = AbortSignal.abort();
    expect(await seam.stop(aborted)).toBeUndefined();
    expect(existsSync(join(cwd, "stop-ran"))).toBe(false);
  });

  it("says a Stop hook's `continue: false` in one line, and lets the answer stand", async () => {
    const halt = commandHook(`echo '{"continue": false, "stopReason": "enough for today"}'`, { event: "Stop" });
    const { seam, notices } = seamOn([halt]);
    expect(await seam.stop(never)).toBeUndefined();
    expect(notices).toEqual(["a Stop hook ended the run: enough for today"]);
  });
});
