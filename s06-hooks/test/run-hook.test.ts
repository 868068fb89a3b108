import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HookInput, preToolUseInput } from "../src/runner/hook-input.ts";
import { killRunningHooks, runHook } from "../src/runner/run-hook.ts";
import { commandHook } from "./command-hook.ts";
import { isGroupRunning, isRunning, until } from "./processes.ts";

let cwd: string;
let input: HookInput;
/** Processes the tests started, killed by id after each test if one was left behind. */
const started: number[] = [];

beforeEach(() => {
  cwd = realpathSync(mkdtempSync(join(tmpdir(), "run-hook-")));
  input = preToolUseInput({ sessionId: "session-1", cwd }, { id: "toolu_1", name: "bash", input: { command: "ls" } });
});

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {} // gone, as it should be
  }
  rmSync(cwd, { recursive: true, force: true });
});

/** The pid a hook wrote to `file` in the working directory (remembered for cleanup). */
function pidFrom(file: string): number {
  const pid = Number(readFileSync(join(cwd, file), "utf8").trim());
  expect(pid).toBeGreaterThan(1);
  started.push(pid);
  return pid;
}

describe("runHook", () => {
  it("gives the hook its input as one JSON object on stdin", async () => {
    const run = await runHook(commandHook("cat"), input, { cwd });
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      session_id: "session-1",
      cwd,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "toolu_1",
    });
  });

  it("runs in the working directory with the project dir in HARNESS_PROJECT_DIR and CLAUDE_PROJECT_DIR", async () => {
    const run = await runHook(commandHook('pwd; echo "$HARNESS_PROJECT_DIR"; echo "$CLAUDE_PROJECT_DIR"'), input, {
      cwd,
    });
    expect(run.stdout).toBe(`${cwd}\n${cwd}\n${cwd}\n`);
  });

  it("keeps the API key out of the hook's environment", async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = ["sk", "ant", "test"].join("-");
    try {
      const run = await runHook(commandHook(`echo "key=\${ANTHROPIC_API_KEY:-unset}"`), input, { cwd });
      expect(run.stdout).toBe("key=unset\n");
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it("keeps stdout and stderr apart, with the exit code", async () => {
    const run = await runHook(commandHook("echo out; echo err >&2; exit 2"), input, { cwd });
    expect(run).toMatchObject({ exitCode: 2, stdout: "out\n", stderr: "err\n", stopped: null, signal: null });
  });

  it("reports a hook that cannot start, without throwing", async () => {
    const run = await runHook(commandHook("true"), input, { cwd: join(cwd, "missing") });
    expect(run.startError).toMatch(/ENOENT/);
    expect(run.exitCode).toBeNull();
  });

  it("does not wait on a hook that never reads a large input: the pipe closes when it exits", async () => {
    const big = preToolUseInput(
      { sessionId: "s", cwd },
      { id: "toolu_2", name: "write_file", input: { path: "big.txt", content: "x".repeat(5_000_000) } },
    );
    const run = await runHook(commandHook("echo done"), big, { cwd });
    expect(run).toMatchObject({ exitCode: 0, stdout: "done\n", stopped: null });
  });

  // generous limits: a hook must get to write its pid and set its traps before its timeout, and
  // these wait for processes to die, on a machine that is shared and at times heavily loaded
  describe("stopping a hook", { timeout: 60_000 }, () => {
    it("kills a hook that never reads stdin and sleeps at its timeout, its whole process group with it", async () => {
      const big = preToolUseInput(
        { sessionId: "s", cwd },
        { id: "toolu_3", name: "write_file", input: { path: "big.txt", content: "x".repeat(1_000_000) } },
      );
      const run = await runHook(
        commandHook("echo $$ > group.pid; sleep 100 & echo $! > child.pid; sleep 100", { timeoutMs: 3000 }),
        big,
        { cwd },
      );
      expect(run.stopped).toBe("timeout");
      expect(run.exitCode).toBeNull();
      const group = pidFrom("group.pid");
      const child = pidFrom("child.pid");
      expect(await until(() => !isRunning(child))).toBe(true);
      expect(await until(() => !isGroupRunning(group))).toBe(true);
    });

    it("sends SIGKILL after the grace to a group that ignores SIGTERM", async () => {
      const run = await runHook(
        commandHook(`trap "" TERM; echo $$ > group.pid; sh -c 'trap "" TERM; sleep 100' & wait`, { timeoutMs: 3000 }),
        input,
        { cwd, killGraceMs: 300 },
      );
      expect(run.stopped).toBe("timeout");
      expect(run.signal).toBe("SIGKILL");
      expect(await until(() => !isGroupRunning(pidFrom("group.pid")))).toBe(true);
    });

    it("kills what a hook leaves running in the background when it exits", async () => {
      const run = await runHook(commandHook("sleep 100 & echo $! > background.pid; echo started"), input, { cwd });
      expect(run).toMatchObject({ exitCode: 0, stdout: "started\n" });
      const background = pidFrom("background.pid");
      expect(await until(() => !isRunning(background))).toBe(true);
    });

    it("kills the process group when the signal aborts", async () => {
      const controller = new AbortController();
      const pending = runHook(commandHook("echo $$ > group.pid; sleep 100"), input, {
        cwd,
        signal: controller.signal,
      });
      expect(await until(() => readFileSync(join(cwd, "group.pid"), { flag: "a+" }).length > 0)).toBe(true);
      controller.abort();
      const run = await pending;
      expect(run.stopped).toBe("interrupted");
      expect(await until(() => !isGroupRunning(pidFrom("group.pid")))).toBe(true);
    });

    it("kills every running hook on killRunningHooks", async () => {
      const pending = runHook(commandHook("echo $$ > group.pid; sleep 100"), input, { cwd });
      expect(await until(() => readFileSync(join(cwd, "group.pid"), { flag: "a+" }).length > 0)).toBe(true);
      killRunningHooks();
      const run = await pending;
      expect(run.signal).toBe("SIGKILL");
      expect(await until(() => !isGroupRunning(pidFrom("group.pid")))).toBe(true);
    });
  });

  describe("output", { timeout: 120_000 }, () => {
    it("stops a hook that floods without end at its timeout, its output and its group bounded", async () => {
      const run = await runHook(commandHook("echo $$ > group.pid; yes", { timeoutMs: 3000 }), input, {
        cwd,
        maxOutputBytes: 2000,
      });
      expect(run.stopped).toBe("timeout");
      expect(run.stdout.startsWith("y\ny\n")).toBe(true);
      expect(run.stdout.length).toBeLessThan(2100);
      expect(run.stdoutCutBytes).toBeGreaterThan(0);
      expect(await until(() => !isGroupRunning(pidFrom("group.pid")))).toBe(true);
    });

    it("keeps the head and tail of a flood on stdout and stderr within the bound, memory bounded", async () => {
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 10);
      const run = await runHook(
        commandHook(
          "echo START; head -c 100000000 /dev/zero | tr '\\0' a; echo; echo END; yes e | head -c 50000000 >&2",
          { timeoutMs: 100_000 },
        ),
        input,
        { cwd, maxOutputBytes: 1000 },
      );
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      expect(run.exitCode).toBe(0);
      expect(run.stdout.startsWith("START\naaa")).toBe(true);
      expect(run.stdout.endsWith("aaa\nEND\n")).toBe(true);
      expect(run.stdout).toMatch(/\[\.\.\. \d+ bytes of output cut \.\.\.\]/);
      expect(run.stdout.length).toBeLessThan(1100);
      expect(run.stdoutCutBytes).toBe(100_000_000 + "START\n\nEND\n".length - 1000);
      expect(run.stderr.length).toBeLessThan(1100);
      // keeping it would cost 150 MB at least; the buffers cost 2 kB
      expect(peak - before).toBeLessThan(64 * 1024 * 1024);
    });
  });
});
