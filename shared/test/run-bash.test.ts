import { spawnSync } from "node:child_process";
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
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runBash } from "../src/run-bash.ts";
import { killRunningCommands, runInGroup } from "../src/run-in-group.ts";

let cwd: string;
/** Processes the tests started, killed by id after each test if a test left one behind. */
const started: number[] = [];

beforeEach(() => {
  cwd = realpathSync(mkdtempSync(join(tmpdir(), "run-bash-")));
});

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {} // gone, as it should be
  }
  rmSync(cwd, { recursive: true, force: true });
});

/**
 * True while `pid` still runs. A killed process whose parent is gone can stay a zombie until
 * PID 1 reaps it (containers often have a PID 1 that never does); a zombie runs nothing more.
 */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
  if (!existsSync("/proc/self/stat")) return true; // no /proc: trust kill(pid, 0)
  try {
    return !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false; // it went away between the two checks
  }
}

/** True while any process of the group `pgid` still runs (zombies aside, as above). */
function isGroupRunning(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
  if (!existsSync("/proc/self/stat")) return true;
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .some((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return Number(pgrp) === pgid && state !== "Z" && state !== "X";
      } catch {
        return false;
      }
    });
}

/** Wait for a condition, polling; generous, since these machines are shared and slow at times. */
async function until(condition: () => boolean, timeoutMs = 8000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

/** The pid a command wrote to `file` in the working directory (remembered for cleanup). */
function pidFrom(file: string): number {
  const pid = Number(readFileSync(join(cwd, file), "utf8").trim());
  expect(pid).toBeGreaterThan(1);
  started.push(pid);
  return pid;
}

async function pidWhenWritten(file: string): Promise<number> {
  expect(await until(() => existsSync(join(cwd, file)) && readFileSync(join(cwd, file), "utf8").endsWith("\n"))).toBe(
    true,
  );
  return pidFrom(file);
}

describe("runBash", () => {
  it("returns the output and exit code 0", async () => {
    const result = await runBash("echo hello", { cwd });
    expect(result).toEqual({ content: "hello\n[exit code 0]", isError: false });
  });

  it("runs in the directory it is given", async () => {
    const result = await runBash("pwd", { cwd });
    expect(result.content).toBe(`${cwd}\n[exit code 0]`);
  });

  it("reports a non-zero exit code as an error, with the output", async () => {
    const result = await runBash("echo oops; exit 3", { cwd });
    expect(result).toEqual({ content: "oops\n[exit code 3]", isError: true });
  });

  it("says so when a command prints nothing", async () => {
    const result = await runBash("true", { cwd });
    expect(result.content).toBe("(no output)\n[exit code 0]");
  });

  it("keeps stdout and stderr interleaved in the order they were written", async () => {
    const result = await runBash("for i in 1 2 3; do echo out$i; echo err$i >&2; done", { cwd });
    expect(result.content).toBe("out1\nerr1\nout2\nerr2\nout3\nerr3\n[exit code 0]");
  });

  it("reports a command killed by a signal as an error", async () => {
    const result = await runBash("echo before; kill -KILL $$", { cwd });
    expect(result).toEqual({ content: "before\n[killed by SIGKILL]", isError: true });
  });

  it.each(["", "   ", "\n\t"])("returns an error for the empty command %j without running bash", async (command) => {
    const result = await runBash(command, { cwd });
    expect(result).toEqual({ content: "Error: the command is empty.", isError: true });
  });

  it("returns an error result, never a rejection, when bash cannot start in the directory", async () => {
    const result = await runBash("echo hi", { cwd: join(cwd, "does-not-exist") });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/could not start bash/);
  });

  describe("stdin", { timeout: 20_000 }, () => {
    it("gives cat an immediate end of input", async () => {
      const result = await runBash("cat", { cwd, timeoutMs: 8000 });
      expect(result).toEqual({ content: "(no output)\n[exit code 0]", isError: false });
    });

    it("gives read an immediate end of input", async () => {
      const result = await runBash('read x; echo "read returned $?"', { cwd, timeoutMs: 8000 });
      expect(result).toEqual({ content: "read returned 1\n[exit code 0]", isError: false });
    });
  });

  describe("the key", () => {
    afterEach(() => vi.unstubAllEnvs());

    it("is not in a command's environment, under either name", async () => {
      vi.stubEnv("ANTHROPIC_API_KEY", "sk-run-bash-test");
      vi.stubEnv("ANTHROPIC_AUTH_TOKEN", "tok-run-bash-test");
      const result = await runBash("env | grep -c '^ANTHROPIC_\\(API_KEY\\|AUTH_TOKEN\\)=' || true", { cwd });
      expect(result.content).toBe("0\n[exit code 0]");
    });

    it("stays readable in the environment a process started with, even once deleted from process.env", () => {
      // why the harness does not try to hide a key from the shell: a command reads its parent's
      // environment as it was at exec, which deleting from process.env does not change
      const parentEnv =
        process.platform === "linux"
          ? "tr '\\0' '\\n' < /proc/$PPID/environ"
          : "ps eww -o command= -p $PPID | tr ' ' '\\n'";
      const script = `delete process.env.HARNESS_KEY_TEST;
        const r = require("node:child_process").spawnSync("bash", ["-c", ${JSON.stringify(parentEnv)}], { encoding: "utf8" });
        process.stdout.write(String(process.env.HARNESS_KEY_TEST) + "\\n" + r.stdout);`;
      const out = spawnSync(process.execPath, ["-e", script], {
        env: { ...process.env, HARNESS_KEY_TEST: "still-here" },
        encoding: "utf8",
      }).stdout;
      expect(out.split("\n")[0]).toBe("undefined"); // gone from process.env
      expect(out).toContain("HARNESS_KEY_TEST=still-here"); // still in what the parent started with
    });
  });

  describe("the user's ~/.bashrc", () => {
    it("is not read, even when stdin is a socket (Debian's bash reads it then, as if run by sshd)", async () => {
      // Node gives a child's stdin as a socket pair; a top-level bash (SHLVL below 2) built with
      // SSH_SOURCE_BASHRC then runs ~/.bashrc, and what it prints lands in a hook's stdout or stderr
      const home = mkdtempSync(join(tmpdir(), "run-in-group-home-"));
      try {
        writeFileSync(join(home, ".bashrc"), "echo bashrc-ran >&2\necho bashrc-ran\n");
        const run = await runInGroup("cat", {
          cwd,
          stdin: "the input",
          timeoutMs: 8000,
          env: { HOME: home, SHLVL: "0" },
        });
        expect({ stdout: run.stdout.text(), stderr: run.stderr.text() }).toEqual({ stdout: "the input", stderr: "" });
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  });

  describe("a fresh shell per call", () => {
    it("does not carry a cd or an export into the next call", async () => {
      await runBash("mkdir sub && cd sub && export HARNESS_LEAK_TEST=leaked", { cwd });
      const result = await runBash("pwd; printenv HARNESS_LEAK_TEST || echo unset", { cwd });
      expect(result.content).toBe(`${cwd}\nunset\n[exit code 0]`);
    });

    it("keeps the output of two calls at once apart", async () => {
      const [a, b] = await Promise.all([
        runBash("for i in 1 2 3; do echo a$i; sleep 0.01; done", { cwd }),
        runBash("for i in 1 2 3; do echo b$i; sleep 0.01; done", { cwd }),
      ]);
      expect(a.content).toBe("a1\na2\na3\n[exit code 0]");
      expect(b.content).toBe("b1\nb2\nb3\n[exit code 0]");
    });
  });

  describe("output", () => {
    it("keeps the head and the tail of long output and counts the bytes cut", async () => {
      const result = await runBash("seq 1 10000", { cwd, maxOutputBytes: 100 });
      const total = Array.from({ length: 10000 }, (_, i) => `${i + 1}\n`).join("").length;
      expect(result.content.startsWith("1\n2\n3\n")).toBe(true);
      expect(result.content).toContain(`[... ${total - 100} bytes of output cut ...]`);
      expect(result.content.endsWith("9999\n10000\n[exit code 0]")).toBe(true);
    });

    it("keeps memory bounded and the head and tail intact through 200 MB of output", async () => {
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 10);
      const result = await runBash(
        "echo START-MARKER; head -c 200000000 /dev/zero | tr '\\0' a; echo; echo END-MARKER",
        { cwd },
      );
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);

      const total = "START-MARKER\n".length + 200_000_000 + "\n".length + "END-MARKER\n".length;
      expect(result.isError).toBe(false);
      expect(result.content.startsWith("START-MARKER\naaaa")).toBe(true);
      expect(result.content).toContain(`[... ${total - 30_000} bytes of output cut ...]`);
      expect(result.content.endsWith("aaaa\nEND-MARKER\n[exit code 0]")).toBe(true);
      expect(result.content.length).toBeLessThan(31_000);
      // keeping it all would cost 200 MB at least; the buffer costs 30 kB
      expect(peak - before).toBeLessThan(100 * 1024 * 1024);
    }, 60_000);

    it("decodes binary output and invalid UTF-8 without failing", async () => {
      const result = await runBash("printf 'a\\377\\376\\000b\\n'", { cwd });
      expect(result).toEqual({ content: "a\uFFFD\uFFFD\uFFFDb\n[exit code 0]", isError: false });
    });

    it("returns random bytes as text", async () => {
      const result = await runBash("head -c 100000 /dev/urandom", { cwd });
      expect(result.isError).toBe(false);
      expect(result.content).not.toContain("\0");
      expect(result.content).toMatch(/bytes of output cut/);
      expect(result.content.endsWith("[exit code 0]")).toBe(true);
    });
  });

  describe("the deny list", () => {
    // each refused command starts with `exit 7;`: if the deny list ever let one through, bash
    // would exit before reaching it, and the test would fail on "[exit code 7]"
    it.each([
      "exit 7; rm -rf /",
      "exit 7; rm -rf ~",
      "exit 7; mkfs.ext4 /dev/sdz9",
      "exit 7; shutdown -h now",
      "exit 7; reboot",
      "exit 7; :(){ :|:& };:",
      "exit 7; dd if=/dev/zero of=/dev/sdz",
      "exit 7; echo x > /dev/sdz",
    ])("refuses %s without running it", async (command) => {
      const result = await runBash(command, { cwd });
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/^Error: refused by the deny list \(.+\)\. Run something narrower\.$/);
    });

    it("runs rm -rf on a directory of the project", async () => {
      mkdirSync(join(cwd, "build", "deep"), { recursive: true });
      const result = await runBash("rm -rf ./build && echo removed", { cwd });
      expect(result).toEqual({ content: "removed\n[exit code 0]", isError: false });
      expect(existsSync(join(cwd, "build"))).toBe(false);
    });

    it("runs a command that only mentions a denied word", async () => {
      const result = await runBash("echo shutdown is a word; echo reboot | wc -c", { cwd });
      expect(result).toEqual({ content: "shutdown is a word\n7\n[exit code 0]", isError: false });
    });
  });

  // generous limits: these wait for processes to die, and a shared machine can be slow
  describe("stopping a command", { timeout: 20_000 }, () => {
    it("kills a command that runs past its timeout, grandchildren included", async () => {
      const result = await runBash("echo $$ > group.pid; sh -c 'sleep 100 & echo $! > grandchild.pid; wait'", {
        cwd,
        timeoutMs: 1000,
      });
      expect(result.isError).toBe(true);
      expect(result.content).toBe("(no output)\n[timed out after 1 s; the process group was killed]");
      const grandchild = pidFrom("grandchild.pid");
      const group = pidFrom("group.pid");
      expect(await until(() => !isRunning(grandchild))).toBe(true);
      expect(await until(() => !isGroupRunning(group))).toBe(true);
    });

    it("keeps the output printed before the timeout", async () => {
      const result = await runBash("echo before; sleep 100", { cwd, timeoutMs: 500 });
      expect(result).toEqual({
        content: "before\n[timed out after 0.5 s; the process group was killed]",
        isError: true,
      });
    });

    it("kills a grandchild that ignores SIGTERM", async () => {
      // bash itself dies on SIGTERM; the kill that follows its exit takes the grandchild along
      const result = await runBash(
        `sh -c 'trap "" TERM; sleep 100 & echo $! > grandchild.pid; wait'; echo unreachable`,
        {
          cwd,
          timeoutMs: 1000,
          killGraceMs: 60_000,
        },
      );
      expect(result.content).toMatch(/\[timed out after 1 s; the process group was killed\]$/);
      const grandchild = pidFrom("grandchild.pid");
      expect(await until(() => !isRunning(grandchild))).toBe(true);
    });

    it("sends SIGKILL after the grace when the whole group ignores SIGTERM", async () => {
      const result = await runBash(
        `trap "" TERM; sh -c 'sleep 100 & echo $! > grandchild.pid; wait'; echo unreachable`,
        {
          cwd,
          timeoutMs: 1000,
          killGraceMs: 300,
        },
      );
      expect(result).toEqual({
        content: "(no output)\n[timed out after 1 s; the process group was killed]",
        isError: true,
      });
      const grandchild = pidFrom("grandchild.pid");
      expect(await until(() => !isRunning(grandchild))).toBe(true);
    });

    it("kills the process group when the signal aborts", async () => {
      const controller = new AbortController();
      const pending = runBash("echo $$ > group.pid; sleep 100 & echo $! > child.pid; wait", {
        cwd,
        signal: controller.signal,
      });
      const child = await pidWhenWritten("child.pid");
      const group = pidFrom("group.pid");
      expect(isRunning(child)).toBe(true);
      expect(isGroupRunning(group)).toBe(true);
      controller.abort();
      const result = await pending;
      expect(result).toEqual({ content: "(no output)\n[interrupted; the process group was killed]", isError: true });
      expect(await until(() => !isRunning(child))).toBe(true);
      expect(await until(() => !isGroupRunning(group))).toBe(true);
    });

    it("does not run past a signal that was aborted before the call", async () => {
      const controller = new AbortController();
      controller.abort();
      const result = await runBash("sleep 100", { cwd, signal: controller.signal });
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/\[interrupted; the process group was killed\]$/);
    });

    it("returns at once when a command leaves a process in the background, and kills it", async () => {
      const start = Date.now();
      const result = await runBash("sleep 100 & echo $! > background.pid; echo started", { cwd });
      expect(result).toEqual({ content: "started\n[exit code 0]", isError: false });
      expect(Date.now() - start).toBeLessThan(10_000); // not the 100 s of the sleep
      const background = pidFrom("background.pid");
      expect(await until(() => !isRunning(background))).toBe(true);
    });

    it("stops waiting for a process that left the group but holds the output pipe", async () => {
      // setsid takes the sleep out of the process group, out of reach of the kill: the call
      // still returns, after the grace; the escaped process is the test's to kill
      const result = await runBash("setsid sleep 100 & echo $! > escaped.pid; echo started", {
        cwd,
        killGraceMs: 200,
      });
      expect(result).toEqual({ content: "started\n[exit code 0]", isError: false });
      pidFrom("escaped.pid");
    });

    it("kills every running command on killRunningCommands", async () => {
      const pending = runBash("sleep 100 & echo $! > child.pid; wait", { cwd });
      const child = await pidWhenWritten("child.pid");
      expect(isRunning(child)).toBe(true);
      killRunningCommands();
      const result = await pending;
      expect(result).toEqual({ content: "(no output)\n[killed by SIGKILL]", isError: true });
      expect(await until(() => !isRunning(child))).toBe(true);
    });
  });

  /**
   * What a model's command can do to the harness that runs it. Each call must return within its
   * timeout plus the kill grace (the bounds below are generous: a "does not hang" check, not a
   * measure of speed), and no process of its group may outlive it.
   */
  describe("hazards", { timeout: 60_000 }, () => {
    /** Run `command`, which writes its group id to group.pid first; return the result, the time taken and the group. */
    async function runHazard(command: string, options: { timeoutMs?: number; killGraceMs?: number } = {}) {
      const start = Date.now();
      const result = await runBash(`echo $$ > group.pid; ${command}`, { cwd, ...options });
      const elapsedMs = Date.now() - start;
      return { result, elapsedMs, group: pidFrom("group.pid") };
    }

    /** The timeout plus the grace, plus ten seconds for a loaded machine. */
    const bound = (timeoutMs: number, killGraceMs = 2000) => timeoutMs + killGraceMs + 10_000;

    it("kills a fork-heavy command at its timeout, every one of its 200 background processes with it", async () => {
      const { result, elapsedMs, group } = await runHazard("for i in $(seq 200); do (sleep 30 &); done; sleep 30", {
        timeoutMs: 1000,
      });
      expect(result).toEqual({
        content: "(no output)\n[timed out after 1 s; the process group was killed]",
        isError: true,
      });
      expect(elapsedMs).toBeLessThan(bound(1000));
      expect(await until(() => !isGroupRunning(group))).toBe(true);
    });

    it("returns when a fork-heavy command exits, killing the 200 processes it left behind", async () => {
      const { result, elapsedMs, group } = await runHazard("for i in $(seq 200); do (sleep 30 &); done; echo spawned");
      expect(result).toEqual({ content: "spawned\n[exit code 0]", isError: false });
      expect(elapsedMs).toBeLessThan(bound(0));
      expect(await until(() => !isGroupRunning(group))).toBe(true);
    });

    it("kills a tree where every process ignores SIGTERM, after the grace", async () => {
      const { result, elapsedMs, group } = await runHazard(
        `trap "" TERM; for i in $(seq 20); do (sleep 30; echo unreachable) & done; wait`,
        { timeoutMs: 1000, killGraceMs: 500 },
      );
      expect(result).toEqual({
        content: "(no output)\n[timed out after 1 s; the process group was killed]",
        isError: true,
      });
      expect(elapsedMs).toBeLessThan(bound(1000, 500));
      expect(await until(() => !isGroupRunning(group))).toBe(true);
    });

    it("stops yes at its timeout with its output and memory bounded", async () => {
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 10);
      const { result, elapsedMs, group } = await runHazard("yes", { timeoutMs: 1000 });
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);

      expect(result.isError).toBe(true);
      expect(result.content.startsWith("y\ny\ny\n")).toBe(true);
      expect(result.content).toMatch(/\[\.\.\. \d+ bytes of output cut \.\.\.\]/);
      expect(result.content).toMatch(/y\n\[timed out after 1 s; the process group was killed\]$/);
      expect(result.content.length).toBeLessThan(31_000);
      // a second of yes is hundreds of megabytes, all in memory if they were kept; what is kept is 30 kB,
      // plus the chunks the collector has not reached yet, which grow with the rate, not the total
      const cut = Number(/\[\.\.\. (\d+) bytes of output cut/.exec(result.content)?.[1]);
      expect(peak - before).toBeLessThan(Math.max(64 * 1024 * 1024, cut / 4));
      expect(elapsedMs).toBeLessThan(bound(1000));
      expect(await until(() => !isGroupRunning(group))).toBe(true);
    });

    it("keeps the head and tail of a 50 MB line with no newline, memory bounded", async () => {
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 10);
      const { result, elapsedMs, group } = await runHazard("head -c 50000000 /dev/zero | tr '\\0' x");
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);

      const line = "x".repeat(15_000);
      expect(result).toEqual({
        content: `${line}\n\n[... ${50_000_000 - 30_000} bytes of output cut ...]\n\n${line}\n[exit code 0]`,
        isError: false,
      });
      // keeping the line would cost 100 MB at least (its bytes, then its text); the buffer costs 30 kB
      expect(peak - before).toBeLessThan(64 * 1024 * 1024);
      expect(elapsedMs).toBeLessThan(bound(0));
      expect(await until(() => !isGroupRunning(group))).toBe(true);
    });

    it("turns a megabyte of NUL bytes into replacement characters, never a NUL", async () => {
      const { result, group } = await runHazard("printf 'a\\0b'; head -c 1000000 /dev/zero; printf END");
      expect(result.isError).toBe(false);
      expect(result.content).not.toContain("\0");
      expect(result.content.startsWith("a\uFFFDb\uFFFD\uFFFD")).toBe(true);
      expect(result.content.endsWith("\uFFFDEND\n[exit code 0]")).toBe(true);
      expect(await until(() => !isGroupRunning(group))).toBe(true);
    });

    it("gives a command that waits on stdin its end at once, even inside a pipeline", async () => {
      const { result, elapsedMs, group } = await runHazard("cat | wc -c; read -r line || echo eof", {
        timeoutMs: 30_000,
      });
      expect(result).toEqual({ content: "0\neof\n[exit code 0]", isError: false });
      expect(elapsedMs).toBeLessThan(bound(0)); // not the 30 s timeout
      expect(await until(() => !isGroupRunning(group))).toBe(true);
    });

    it("lets no shell state reach the next call or the harness: directory, variables, umask, options, functions", async () => {
      const probe =
        'pwd; printenv HARNESS_LEAK || echo unset; umask; [[ -o noclobber ]] && echo noclobber || echo clobber; type leak >/dev/null 2>&1 && echo "function" || echo "no function"';
      const baseline = await runBash(probe, { cwd });
      const harnessCwd = process.cwd();

      const { result } = await runHazard(
        "cd / && export HARNESS_LEAK=1 && umask 077 && set -o noclobber && leak() { :; } && alias ll=ls && echo changed",
      );
      expect(result.content).toBe("changed\n[exit code 0]");
      const after = await runBash(probe, { cwd });
      expect(after).toEqual(baseline);
      expect(after.content).toContain(`${cwd}\nunset\n`);
      expect(after.content).toMatch(/clobber\nno function\n\[exit code 0\]$/);
      expect(process.cwd()).toBe(harnessCwd);
      expect(process.env.HARNESS_LEAK).toBeUndefined();
    });
  });
});
