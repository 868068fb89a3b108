import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliRunner, sampleDirs, until } from "../src/cli-runner.ts";

const { cleanEnv, project, runCli, startCli } = cliRunner("s01-agent-loop");
let made = "";

describe("cliRunner", () => {
  it("makes a project of the given files, and removes it after the test", () => {
    made = project({ "a/b.txt": "hi" }, { git: true });
    expect(readFileSync(join(made, "a", "b.txt"), "utf8")).toBe("hi");
    expect(readFileSync(join(made, ".git", "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
  });

  it("has removed the last test's project, and keeps the shell's key out of the environment", () => {
    expect(existsSync(made)).toBe(false);
    process.env.ANTHROPIC_API_KEY_FOR_THIS_TEST = "x";
    try {
      const env = cleanEnv({ EXTRA: "1" });
      expect(env.ANTHROPIC_API_KEY_FOR_THIS_TEST).toBeUndefined();
      expect(env).toMatchObject({ NO_COLOR: "1", EXTRA: "1" });
      expect(env.HARNESS_HOME).toMatch(/s01-home-/);
    } finally {
      delete process.env.ANTHROPIC_API_KEY_FOR_THIS_TEST;
    }
  });

  it("runs the chapter's CLI in a child process", { timeout: 60_000 }, async () => {
    const { code, stdout } = await runCli(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^s01: /);
  });

  it("starts the CLI and leaves its input open, for a test to type into or stop it", { timeout: 60_000 }, async () => {
    const cli = startCli(["--offline"], cleanEnv());
    await until("the REPL's prompt", () => cli.stdout().includes("s01 >> "));
    cli.child.stdin?.write("q\n");
    expect(await cli.exited).toBe(0);
  });
});

describe("sampleDirs", () => {
  const sampleDir = sampleDirs(
    "/tmp/s00-sample",
    "mkdir -p /tmp/s00-sample/sub\necho hi > /tmp/s00-sample/sub/a.txt\n",
  );

  it("makes a fresh copy of the sample directory, as long as its name, by the setup block", () => {
    const [one, two] = [sampleDir(), sampleDir()];
    expect(one).not.toBe(two);
    expect(one).toMatch(/^\/tmp\/s00-/);
    expect(one.length).toBe("/tmp/s00-sample".length);
    expect(readFileSync(join(one, "sub", "a.txt"), "utf8")).toBe("hi\n");
  });
});
