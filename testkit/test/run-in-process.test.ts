import { describe, expect, it } from "vitest";
import { cliRunner, REPO_ROOT } from "../src/cli-runner.ts";
import { type ChapterMain, runInProcess } from "../src/run-in-process.ts";

/** A main that echoes its input, its arguments and what it reads from process.env and its io. */
const echo: ChapterMain = async (argv, io) => {
  let input = "";
  for await (const chunk of io.stdin) input += chunk;
  io.stdout.write(`argv ${argv.join(" ")}; input ${input.trim()}; tty ${io.stdin.isTTY === true}\n`);
  io.stderr.write(`process ${process.env.RUN_HERE_TEST}; io ${io.env.RUN_HERE_TEST}; from ${io.env.INIT_CWD}\n`);
  return 3;
};

const withMain = cliRunner("s05-permissions", { main: echo });
const withoutMain = cliRunner("s01-agent-loop");

describe("runInProcess", () => {
  it("runs main on piped streams, with the run's environment as process.env until it ends", async () => {
    process.env.RUN_HERE_OUTSIDE = "kept";
    try {
      const run = await runInProcess(echo, ["a", "b"], { RUN_HERE_TEST: "inside" }, "typed\n");
      expect(run).toEqual({
        code: 3,
        stdout: "argv a b; input typed; tty false\n",
        stderr: `process inside; io inside; from ${REPO_ROOT}\n`,
      });
      expect(process.env.RUN_HERE_TEST).toBeUndefined();
      expect(process.env.RUN_HERE_OUTSIDE).toBe("kept");
    } finally {
      delete process.env.RUN_HERE_OUTSIDE;
    }
  });

  it("starts from the directory the environment names, and restores process.env when main throws", async () => {
    const saved = { ...process.env };
    const run = await runInProcess(echo, [], { RUN_HERE_TEST: "x", INIT_CWD: "/tmp" });
    expect(run.stderr).toBe("process x; io x; from /tmp\n");
    const fails: ChapterMain = async () => {
      throw new Error("boom");
    };
    await expect(runInProcess(fails, [], { RUN_HERE_TEST: "x" })).rejects.toThrow("boom");
    expect(process.env).toEqual(saved);
  });

  it("refuses a second run while one has not ended, and throws when the CLI asks to end the process", async () => {
    let release = () => {};
    const waits: ChapterMain = () => new Promise((resolve) => (release = () => resolve(0)));
    const first = runInProcess(waits, [], {});
    await expect(runInProcess(echo, [], {})).rejects.toThrow("another run has not ended");
    release();
    expect((await first).code).toBe(0);
    const exits: ChapterMain = async (_argv, io) => {
      io.exit?.(130);
      return 0;
    };
    await expect(runInProcess(exits, [], {})).rejects.toThrow("asked to end the process (130)");
  });
});

describe("runHere", () => {
  it("runs the runner's main here, in a clean environment, and says so when it was given none", async () => {
    const run = await withMain.runHere(["--help"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^process undefined; io undefined; from /);
    expect(() => withoutMain.runHere([])).toThrow("was given no main");
  });
});
