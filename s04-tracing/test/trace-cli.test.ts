import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { Writable } from "node:stream";
import { REPO_ROOT } from "@harness/cli";
import { reply, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { projectSlug } from "../src/harness-data-dir.ts";
import { runTraceCli } from "../src/viewer/trace-cli.ts";
import { scriptedTrace, tempDir } from "./scripted-trace.ts";

/** A HARNESS_HOME that holds nothing, so no test reads or writes the real ~/.harness. */
const EMPTY_HOME = tempDir("s04-cli-home-");

/** Run the tracer with captured output; `env` replaces the process environment. */
function trace(argv: string[], env: NodeJS.ProcessEnv = {}) {
  env = { HARNESS_HOME: EMPTY_HOME, ...env };
  let stdout = "";
  let stderr = "";
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  const code = runTraceCli(argv, {
    stdout: sink((s) => {
      stdout += s;
    }),
    stderr: sink((s) => {
      stderr += s;
    }),
    env,
  });
  return { code, stdout, stderr };
}

/** One finished trace of the project in `cwd`, where traceDir puts it for HARNESS_HOME `home`. */
async function oneTrace() {
  const home = tempDir("s04-cli-home-");
  const run = await scriptedTrace(
    [reply([toolUse("read_file", { path: "notes.txt" })]), textReply("It says alpha and beta.")],
    { traceId: "20260304-050607-abc123", prompts: ["What does notes.txt say?"], home },
  );
  expect(historyProblems(run.messages)).toEqual([]);
  return { dir: join(run.writer.path, ".."), cwd: run.cwd, home, model: run.model };
}

describe("runTraceCli", () => {
  it("lists the traces of --dir", async () => {
    const { dir } = await oneTrace();
    const { code, stdout, stderr } = trace(["list", "--dir", dir]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const [header, row, end] = stdout.split("\n");
    expect(header).toMatch(/^ID\s+STARTED \(UTC\)\s+STOP\s+TURNS\s+TOKENS IN\/OUT\s+FIRST PROMPT$/);
    expect(row).toMatch(
      /^20260304-050607-abc123\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+final_answer\s+2\s+\d+\/\d+\s+What does/,
    );
    expect(end).toBe("");
  });

  it("reads the traces of the project pnpm was started from, of --cwd, of HARNESS_TRACE_DIR or of --dir", async () => {
    const { dir, cwd, home } = await oneTrace();
    const elsewhere = tempDir("s04-cli-");
    const listed = (argv: string[], env: NodeJS.ProcessEnv) => trace(["list", ...argv], env).stdout;
    expect(dir).toBe(join(home, "projects", projectSlug(cwd), "traces"));
    expect(listed([], { INIT_CWD: cwd, HARNESS_HOME: home })).toContain("20260304-050607-abc123");
    expect(listed([], { INIT_CWD: elsewhere, HARNESS_HOME: home })).toMatch(/^No traces yet\./);
    expect(listed(["--cwd", cwd], { INIT_CWD: elsewhere, HARNESS_HOME: home })).toContain("20260304-050607-abc123");
    expect(listed(["--cwd", relative(elsewhere, cwd)], { INIT_CWD: elsewhere, HARNESS_HOME: home })).toContain(
      "20260304-050607-abc123",
    );
    expect(listed([], { INIT_CWD: elsewhere, HARNESS_TRACE_DIR: dir })).toContain("20260304-050607-abc123");
    expect(listed(["--dir", relative(elsewhere, dir)], { INIT_CWD: elsewhere })).toContain("20260304-050607-abc123");
  });

  it("prints request #N of a trace whole, as the model received it", async () => {
    const { dir, model } = await oneTrace();
    for (const n of [1, 2]) {
      const { code, stdout, stderr } = trace(["show", "20260304-050607-abc123", "--request", String(n), "--dir", dir]);
      expect(code).toBe(0);
      expect(stderr).toBe("");
      const { model: id, max_tokens, system, tools, messages } = model.requests[n - 1].body;
      expect(stdout).toBe(`${JSON.stringify({ model: id, max_tokens, system, tools, messages }, null, 2)}\n`);
    }
  });

  it("says there are no traces yet, successfully, for an empty directory", () => {
    const { code, stdout } = trace(["list", "--dir", tempDir("s04-cli-")]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^No traces yet\./);
  });

  it("shows one trace as a timeline", async () => {
    const { dir } = await oneTrace();
    const { code, stdout } = trace(["show", "20260304-050607-abc123", "--dir", dir]);
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    expect(lines[0]).toBe(`trace 20260304-050607-abc123  (${join(dir, "20260304-050607-abc123.jsonl")})`);
    expect(lines).toContain('run 1 · "What does notes.txt say?"');
    expect(stdout).toMatch(/ {2}turn 1 .* · tool_use\n/);
    expect(stdout).toMatch(/ {4}✓ read_file \{"path":"notes.txt"\}/);
    expect(stdout).toMatch(/ {2}→ final_answer · 2 turns · 1 tool call · \d+ in \/ \d+ out tokens\n$/);
  });

  it("writes the HTML view of the newest trace beside it and prints its path", async () => {
    const { dir } = await oneTrace();
    const { code, stdout } = trace(["view", "--dir", dir]);
    const file = join(dir, "20260304-050607-abc123.html");
    expect(code).toBe(0);
    expect(stdout).toBe(`wrote ${file}\nopen it in a browser: file://${file}\n`);
    expect(readFileSync(file, "utf8")).toMatch(/^<!doctype html>/);
  });

  it("writes the view of a named trace where --out says", async () => {
    const { dir, cwd } = await oneTrace();
    const { code, stdout } = trace(["view", "20260304-050607-abc123", "--dir", dir, "--out", "page.html"], {
      INIT_CWD: cwd,
    });
    expect(code).toBe(0);
    expect(stdout).toContain(`wrote ${join(cwd, "page.html")}`);
    expect(existsSync(join(cwd, "page.html"))).toBe(true);
  });

  it("exports a trace as OTLP/JSON beside it", async () => {
    const { dir } = await oneTrace();
    const { code, stdout } = trace(["export", "20260304-050607-abc123", "--dir", dir]);
    const file = join(dir, "20260304-050607-abc123.otlp.json");
    expect(code).toBe(0);
    expect(stdout).toBe(`wrote ${file} (OTLP/JSON; POST it to a collector's /v1/traces)\n`);
    const doc = JSON.parse(readFileSync(file, "utf8"));
    expect(doc.resourceSpans[0].scopeSpans[0].spans.map((s: { name: string }) => s.name)).toEqual([
      "invoke_agent harness-course",
      "chat test-model",
      "execute_tool read_file",
      "chat test-model",
    ]);
  });

  it("prints its usage for --help and exits 0", () => {
    const { code, stdout, stderr } = trace(["--help"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(stdout).toMatch(/^trace: read the traces/);
    for (const command of ["list", "show <id>", "view [id]", "export <id>", "--dir DIR", "--out FILE"]) {
      expect(stdout).toContain(command);
    }
  });

  it("prints its usage on stderr and exits 1 without a command", () => {
    const { code, stdout, stderr } = trace([]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^trace: read the traces/);
  });

  it.each([
    [["show"], /^trace: error: show needs a trace id \(pnpm trace list shows them\)\n$/],
    [["export"], /^trace: error: export needs a trace id/],
    [["show", "nope", "--dir", "/nonexistent-dir"], /^trace: error: no trace "nope" in \/nonexistent-dir /],
    [["show", "../etc/passwd"], /^trace: error: invalid trace id "\.\.\/etc\/passwd"/],
    [["list", "--request", "1"], /^trace: error: --request goes with show\n$/],
    [["view", "--dir", "/nonexistent-dir"], /^trace: error: no traces in \/nonexistent-dir\n$/],
    [["frobnicate"], /^trace: error: unknown command "frobnicate" \(list, show, view, export\)\n$/],
    [["list", "--colour"], /^trace: error: Unknown option '--colour'/],
  ])("fails %j with one line on stderr and exit 1", (argv, message) => {
    const { code, stdout, stderr } = trace(argv);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
    expect(stderr.split("\n")).toHaveLength(2);
  });

  it.each(["0", "3", "x", "1.5", "-1", ""])("refuses --request %j that names no request, in one line", async (n) => {
    const { dir } = await oneTrace();
    const { code, stdout, stderr } = trace(["show", "20260304-050607-abc123", `--request=${n}`, "--dir", dir]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      `trace: error: trace 20260304-050607-abc123 has no request #${n} (pnpm trace show 20260304-050607-abc123 numbers them)\n`,
    );
  });

  it("adds the stack to an error when DEBUG is set", () => {
    const { code, stderr } = trace(["frobnicate"], { DEBUG: "1" });
    expect(code).toBe(1);
    expect(stderr.split("\n")[0]).toBe('trace: error: unknown command "frobnicate" (list, show, view, export)');
    expect(stderr).toMatch(/\n\s+at /);
  });

  it("runs as a script even from a path with a space, reached through a link", () => {
    const linked = join(tempDir("s04-cli-"), "my harness");
    symlinkSync(join(REPO_ROOT, "s04-tracing", "src"), linked);
    const empty = tempDir("s04-cli-");
    const child = spawnSync(
      process.execPath,
      ["--import", "tsx", join(linked, "viewer", "trace-cli.ts"), "list", "--dir", empty],
      {
        cwd: REPO_ROOT,
        encoding: "utf8",
        timeout: 20_000,
      },
    );
    expect(child.status).toBe(0);
    expect(child.stdout).toMatch(/^No traces yet\./);
  }, 30_000);
});
