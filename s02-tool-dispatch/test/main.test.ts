/**
 * The CLI as a reader runs it: `node --import tsx s02-tool-dispatch/src/main.ts` in a child process,
 * with no ANTHROPIC_* variables from the test's environment, where the process is the point (Ctrl-C
 * is a real SIGINT; an input that used to freeze the process must not freeze it); elsewhere its
 * exported `main` in the test's process on the same environment (testkit's runInProcess). Offline runs
 * use the built-in scripted model; the others talk to a scripted model served on 127.0.0.1.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  reply,
  ScriptedModel,
  type ScriptStep,
  startScriptedServer,
  text,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { runInProcess } from "@harness/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/main.ts";
import { tempWorkdir } from "./temp-workdir.ts";

const REPO_ROOT = join(import.meta.dirname, "..", "..");
const MAIN = join(REPO_ROOT, "s02-tool-dispatch", "src", "main.ts");

/** The test's environment without keys, endpoints or a model id, so nothing reaches the network. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(ANTHROPIC_|MODEL_ID$|INIT_CWD$|DEBUG$)/.test(name)),
  );
  return { ...env, NO_COLOR: "1", ...extra };
}

/** A running CLI: what it printed so far, and its exit status once it ends. */
interface Cli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function startCli(args: string[], env: NodeJS.ProcessEnv): Cli {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Run the CLI to the end with stdin closed. */
async function runCli(args: string[], env = cleanEnv()) {
  const cli = startCli(args, env);
  cli.child.stdin?.end();
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** Run the CLI to the end in this process, as `runCli` runs it in a child. */
function runHere(args: string[], env = cleanEnv()) {
  return runInProcess(main, args, env);
}

/** Wait until `check` holds, looking again every few milliseconds (the test's timeout is the deadline). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** True when no live process has this id (none at all, or only a zombie waiting to be reaped). */
function isDead(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** A directory with the files the try-it prompts use. */
function demoDir(): string {
  const cwd = tempWorkdir("s02-cli-");
  writeFileSync(join(cwd, "README.md"), "# Demo\n\nA small project.\n\n## Usage\n\nRun it.\n");
  writeFileSync(join(cwd, "package.json"), '{"name":"demo"}\n');
  writeFileSync(join(cwd, ".gitignore"), "node_modules\n");
  writeFileSync(join(cwd, "app.ts"), "// TODO: handle errors\nexport const x = 1; // FIXME: name\n");
  writeFileSync(join(cwd, "notes.txt"), "this is a draft\n");
  return cwd;
}

/** A scripted model on 127.0.0.1 and the environment that points the CLI at it. */
async function scriptedServer(script: ScriptStep[]) {
  const model = new ScriptedModel({ script });
  const server = await startScriptedServer(model);
  servers.push(server);
  return { model, env: cleanEnv({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.url }) };
}
const servers: { close(): Promise<void> }[] = [];

/** An endpoint on 127.0.0.1 that answers every request with `handler`, and counts the requests. */
async function endpoint(handler: (res: ServerResponse) => void) {
  const seen = { requests: 0 };
  const server = createServer((req, res) => {
    seen.requests++;
    req.resume();
    handler(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return { url, seen, env: cleanEnv({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: url }) };
}
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("s02 CLI", { timeout: 120_000 }, () => {
  describe("the try-it prompts, offline", () => {
    it("summarises README.md from a real read; --json adds the result as the last line", async () => {
      const cwd = demoDir();
      const { code, stdout, stderr } = await runCli([
        "--offline",
        "--json",
        "--cwd",
        cwd,
        "Read README.md and summarise it",
      ]);
      expect(code).toBe(0);
      expect(stdout).toContain('read_file: {"path":"README.md"}');
      expect(stdout).toContain('README.md is 7 lines long. Its title is "Demo". Its sections: Usage.');
      expect(stdout).toContain("── final_answer · 2 turns · 1 tool call");
      expect(count(stderr, "Using the offline scripted model (--offline was given)")).toBe(1);
      const last = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
      expect(Object.keys(last)).toEqual([
        "stopReason",
        "turns",
        "toolCalls",
        "finalText",
        "providerStopReason",
        "usage",
      ]);
      expect(last).toMatchObject({
        stopReason: "final_answer",
        turns: 2,
        toolCalls: 1,
        providerStopReason: "end_turn",
      });
      expect(last.finalText).toContain("README.md is 7 lines long.");
      expect(last.usage).toEqual({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
    });

    it("finds the TODO comments with grep", async () => {
      const { code, stdout } = await runHere([
        "--offline",
        "--cwd",
        demoDir(),
        "Find the TODO comments in this repository",
      ]);
      expect(code).toBe(0);
      expect(stdout).toContain("I found 2 TODO/FIXME comments:");
      expect(stdout).toContain("- app.ts:1: // TODO: handle errors");
      expect(stdout).toContain("- app.ts:2: export const x = 1; // FIXME: name");
    });

    it("finds the TODO comments, never in .gitignored files nor in the harness's own .harness/", async () => {
      const cwd = demoDir();
      mkdirSync(join(cwd, "node_modules", "dep"), { recursive: true });
      writeFileSync(join(cwd, "node_modules", "dep", "index.js"), "// TODO: ignored by .gitignore\n");
      mkdirSync(join(cwd, ".harness"));
      writeFileSync(join(cwd, ".harness", "notes.md"), "TODO: the harness's own\n");
      const { code, stdout } = await runHere(["--offline", "--cwd", cwd, "Find the TODO comments in this repository"]);
      expect(code).toBe(0);
      expect(stdout).toContain("I found 2 TODO/FIXME comments:");
      expect(stdout).not.toContain("ignored by .gitignore");
      expect(stdout).not.toContain("the harness's own");
    });

    it("reads three files in one turn, labelling each result with its call", async () => {
      const { code, stdout } = await runHere([
        "--offline",
        "--cwd",
        demoDir(),
        "Read package.json, README.md and .gitignore",
      ]);
      expect(code).toBe(0);
      for (const path of ["package.json", "README.md", ".gitignore"]) {
        expect(stdout).toContain(`← read_file: {"path":"${path}"}`);
      }
      expect(stdout).toContain("I read 3 files:");
      expect(stdout).toContain("── final_answer · 2 turns · 3 tool calls");
    });

    it("edits notes.txt and reads it back", async () => {
      const cwd = demoDir();
      const { code, stdout } = await runHere([
        "--offline",
        "--cwd",
        cwd,
        'In notes.txt, replace "draft" with "final", then read it back',
      ]);
      expect(code).toBe(0);
      expect(stdout).toContain("Edited notes.txt at line 1.");
      expect(stdout).toContain('I replaced "draft" with "final" in notes.txt. It now reads:');
      expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("this is a final\n");
    });
  });

  describe("input nested deeper than the bound (MAX_INPUT_DEPTH, 64 levels)", () => {
    it("answers a call whose input nests 10,000 levels deep with invalid_arguments, runs nothing, and finishes the run", async () => {
      // a whole response, as the API sends it: the input an object, 10,000 lists deep beside the command
      const deep = `{"command":"touch PWNED","x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
      const message = (content: string, stop: string) =>
        `{"id":"msg_${stop}","type":"message","role":"assistant","model":"m","content":${content},"stop_reason":"${stop}","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":10}}`;
      const { env, seen } = await endpoint((res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          seen.requests === 1
            ? message(`[{"type":"tool_use","id":"toolu_1","name":"bash","input":${deep}}]`, "tool_use")
            : message(`[{"type":"text","text":"Done."}]`, "end_turn"),
        );
      });
      const cwd = tempWorkdir("s02-deep-");
      const { code, stdout, stderr } = await runHere(["--cwd", cwd, "Run it"], env);
      expect(stderr).not.toContain("error");
      expect(code).toBe(0);
      expect(stdout).toContain("Error [invalid_arguments]: the input nests deeper than 64 levels");
      expect(stdout).toContain("── final_answer · 2 turns · 1 tool call");
      expect(seen.requests).toBe(2);
      expect(existsSync(join(cwd, "PWNED"))).toBe(false);
    });
  });

  describe("inputs that used to freeze the process", () => {
    it("answers a runaway grep pattern and a read of a named pipe at once, and finishes the run", async () => {
      const { model, env } = await scriptedServer([
        reply([
          toolUse("grep", { pattern: "^(a+)+$" }, "toolu_grep"),
          toolUse("read_file", { path: "pipe" }, "toolu_pipe"),
        ]),
        textReply("Both answered."),
      ]);
      const cwd = demoDir();
      writeFileSync(join(cwd, "aaa.txt"), `${"a".repeat(40)}!\n`);
      execFileSync("mkfifo", [join(cwd, "pipe")]);
      const { code, stdout } = await runCli(["--cwd", cwd, "go"], env);
      expect(code).toBe(0);
      expect(stdout).toContain("Both answered.");
      const results = model.requests[1].body.messages[2].content;
      expect(results).toEqual([
        expect.objectContaining({
          tool_use_id: "toolu_grep",
          content: "No lines match /^(a+)+$/.\n[skipped: pipe is not a regular file.]",
        }),
        expect.objectContaining({
          tool_use_id: "toolu_pipe",
          content: "Error [not_a_file]: pipe is a named pipe, not a regular file.",
          is_error: true,
        }),
      ]);
    });
  });

  describe("exit status", () => {
    it("is 2 when the turn budget is spent", async () => {
      const { code, stdout } = await runHere([
        "--offline",
        "--max-turns",
        "1",
        "--cwd",
        demoDir(),
        "Read README.md and summarise it",
      ]);
      expect(code).toBe(2);
      expect(stdout).toContain("── max_turns · 1 turn · 1 tool call");
    });

    it("is 3 when the model is cut off at max_tokens", async () => {
      const { model, env } = await scriptedServer([
        reply([text("I was about to"), toolUse("bash", { command: "touch cut" })], { stopReason: "max_tokens" }),
      ]);
      const cwd = demoDir();
      const { code, stdout } = await runHere(["--cwd", cwd, "go"], env);
      expect(code).toBe(3);
      expect(stdout).toContain("── max_tokens");
      expect(existsSync(join(cwd, "cut"))).toBe(false);
      expect(model.requests).toHaveLength(1);
    });

    it("is 1 for bad usage, with one line on stderr", async () => {
      const { code, stderr } = await runHere(["--max-turns", "0", "hi"]);
      expect(code).toBe(1);
      expect(stderr).toBe("s02: error: --max-turns expects a whole number of at least 1, got 0\n");
    });

    it("is 1 for an API error, with one line on stderr and no stack", async () => {
      const { env } = await scriptedServer([{ kind: "http_error", status: 400, message: "this request is wrong" }]);
      const { code, stderr } = await runHere(["--cwd", demoDir(), "hi"], env);
      expect(code).toBe(1);
      expect(stderr).toMatch(/^Using http:\/\/127\.0\.0\.1:\d+ .* with ANTHROPIC_API_KEY from the shell\.\n/);
      expect(stderr.split("\n").slice(1)).toEqual([
        "s02: error: the API answered 400 invalid_request_error: this request is wrong",
        "",
      ]);
    });

    it("is 1 when the endpoint answers with an HTML page, naming it and what came back", async () => {
      const { url, seen, env } = await endpoint((res) =>
        res.writeHead(200, { "content-type": "text/html" }).end("<html><body>Sign in</body></html>"),
      );
      const { code, stdout, stderr } = await runHere(["--cwd", demoDir(), "hi"], env);
      expect(code).toBe(1);
      expect(stderr.split("\n")[1]).toBe(
        `s02: error: ${url}/v1/messages answered 200 text/html, not a Messages API response: "<html><body>Sign in</body></html>"`,
      );
      expect(stdout).not.toContain("final_answer");
      expect(seen.requests).toBe(1);
    });

    it("is 1 when the response has not come for --model-timeout, naming the endpoint, without sending it again", async () => {
      const { url, seen, env } = await endpoint(() => {}); // accepts the request, never answers
      const { code, stderr } = await runHere(["--model-timeout", "1", "--cwd", demoDir(), "hi"], env);
      expect(code).toBe(1);
      expect(stderr.split("\n")[1]).toBe(`s02: error: no response from ${url}/v1/messages within 1 s`);
      expect(seen.requests).toBe(1); // a timeout is not sent again
    });

    it("is 130 at once on Ctrl-C, as in s01: the running command is killed, no summary is printed", async () => {
      const cwd = demoDir();
      const { env } = await scriptedServer([reply([toolUse("bash", { command: "echo $$ > pid; sleep 30" })])]);
      const cli = startCli(["--cwd", cwd, "hi"], env);
      const pidFile = join(cwd, "pid");
      await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"));
      cli.child.kill("SIGINT");
      expect(await cli.exited).toBe(130);
      // the CLI is gone too, so nothing reaps the killed shell: dead means gone or a zombie
      await until(() => isDead(Number(readFileSync(pidFile, "utf8"))));
      expect(cli.stdout()).not.toContain("──");
    });

    it("is 130 on Ctrl-C at the REPL's prompt", async () => {
      const { env } = await scriptedServer([]);
      const cli = startCli(["--cwd", demoDir()], env);
      await until(() => cli.stdout().includes("s02 >> "));
      cli.child.kill("SIGINT");
      expect(await cli.exited).toBe(130);
    });
  });
});
