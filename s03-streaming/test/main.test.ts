/**
 * The CLI as a reader runs it: `node --import tsx s03-streaming/src/main.ts` in a child process,
 * with no ANTHROPIC_* variables from the test's environment, where the process is the point (Ctrl-C
 * is a real SIGINT) and once more to run the program itself; elsewhere its exported `main` in the
 * test's process on the same environment (testkit's runInProcess). Offline runs use the built-in scripted
 * model; the others talk to a scripted model served on 127.0.0.1.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  encodeSse,
  reply,
  ScriptedModel,
  type ScriptStep,
  startScriptedServer,
  text,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { runInProcess } from "@harness/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/main.ts";
import { STREAM_RETRIES } from "../src/stream-turn.ts";
import { tempWorkdir } from "./temp-workdir.ts";

const REPO_ROOT = join(import.meta.dirname, "..", "..");
const MAIN = join(REPO_ROOT, "s03-streaming", "src", "main.ts");

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

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** A directory with the files the try-it prompts use. */
function demoDir(): string {
  const cwd = tempWorkdir("s03-cli-");
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

describe("s03 CLI", { timeout: 120_000 }, () => {
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

    it("streams the text of a turn and shows each tool call once, with its input", async () => {
      const { code, stdout } = await runHere(["--offline", "--cwd", demoDir(), "Read README.md and summarise it"]);
      expect(code).toBe(0);
      expect(count(stdout, "read_file")).toBe(1);
      expect(stdout).toContain('  read_file: {"path":"README.md"}\n');
      expect(stdout).not.toContain("… read_file");
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
      expect(stderr).toBe("s03: error: --max-turns expects a whole number of at least 1, got 0\n");
    });

    it("is 1 for an API error, with one line on stderr and no stack", async () => {
      const { env } = await scriptedServer([{ kind: "http_error", status: 400, message: "this request is wrong" }]);
      const { code, stderr } = await runHere(["--cwd", demoDir(), "hi"], env);
      expect(code).toBe(1);
      expect(stderr).toMatch(/^Using http:\/\/127\.0\.0\.1:\d+ .* with ANTHROPIC_API_KEY from the shell\.\n/);
      expect(stderr.split("\n").slice(1)).toEqual([
        "s03: error: the API answered 400 invalid_request_error: this request is wrong",
        "",
      ]);
    });

    it("is 1 when the endpoint answers a stream with an HTML page, naming it and what came back", async () => {
      const { url, seen, env } = await endpoint((res) =>
        res.writeHead(200, { "content-type": "text/html" }).end("<html><body>Sign in</body></html>"),
      );
      const { code, stdout, stderr } = await runHere(["--cwd", demoDir(), "hi"], env);
      expect(code).toBe(1);
      expect(stderr.split("\n")[1]).toBe(
        `s03: error: ${url}/v1/messages answered 200 text/html, not a Messages API stream: "<html><body>Sign in</body></html>"`,
      );
      expect(stdout).not.toContain("final_answer");
      expect(seen.requests).toBe(1);
    });

    it("is 1 when the stream goes silent after some text for --model-timeout, naming the endpoint", async () => {
      const start = {
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-test",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      };
      const { url, seen, env } = await endpoint((res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(encodeSse({ event: "message_start", data: start }));
        const block = { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } };
        res.write(encodeSse({ event: "content_block_start", data: block }));
        const delta = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Half an ans" } };
        res.write(encodeSse({ event: "content_block_delta", data: delta })); // and then nothing
      });
      const { code, stdout, stderr } = await runHere(["--model-timeout", "2", "--cwd", demoDir(), "hi"], env);
      expect(code).toBe(1);
      expect(stdout).toContain("Half an ans");
      expect(stderr.split("\n")[1]).toBe(
        "s03: error: the stream failed after its content had started " +
          `(the stream from ${url}/v1/messages was silent for 2 s)`,
      );
      expect(seen.requests).toBe(1); // content had arrived: not sent again
    });

    it(`sends a stream that went silent before its content again, ${STREAM_RETRIES} times, then fails`, async () => {
      const { url, seen, env } = await endpoint((res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(encodeSse({ event: "ping", data: { type: "ping" } })); // and then nothing
      });
      const { code, stderr } = await runHere(["--model-timeout", "1", "--cwd", demoDir(), "hi"], env);
      expect(code).toBe(1);
      expect(stderr.split("\n")[1]).toBe(`s03: error: the stream from ${url}/v1/messages was silent for 1 s`);
      expect(seen.requests).toBe(STREAM_RETRIES + 1); // so the wait lasted (STREAM_RETRIES + 1) times the timeout
    });

    it("does not send again a request that got no response at all within --model-timeout", async () => {
      const { url, seen, env } = await endpoint(() => {}); // accepts the request, never answers
      const { code, stderr } = await runHere(["--model-timeout", "1", "--cwd", demoDir(), "hi"], env);
      expect(code).toBe(1);
      expect(stderr.split("\n")[1]).toBe(`s03: error: no response from ${url}/v1/messages within 1 s`);
      expect(seen.requests).toBe(1);
    });

    it("is 130 when Ctrl-C stops a one-shot prompt", async () => {
      const { model, env } = await scriptedServer([{ kind: "hang" }]);
      const cli = startCli(["--cwd", demoDir(), "hi"], env);
      await until(() => model.requests.length === 1);
      cli.child.kill("SIGINT");
      expect(await cli.exited).toBe(130);
      expect(cli.stdout()).toContain("── aborted · 1 turn · 0 tool calls");
    });
  });

  describe("Ctrl-C in the REPL", () => {
    /**
     * Start the REPL against `first`, send the prompt, press Ctrl-C once `ready` holds, then check
     * that the prompt comes back, that a next prompt is answered (the server rejects an invalid
     * history with a 400), and that a second Ctrl-C at the prompt exits 130.
     */
    async function interruptThenContinue(
      first: ScriptStep,
      ready: (cli: Cli, model: ScriptedModel, cwd: string) => boolean,
    ) {
      const cwd = demoDir();
      const { model, env } = await scriptedServer([first, textReply("Back again.")]);
      const cli = startCli(["--cwd", cwd], env);
      await until(() => cli.stdout().includes("s03 >> "));
      cli.child.stdin?.write("first prompt\n");
      await until(() => model.requests.length === 1 && ready(cli, model, cwd));

      cli.child.kill("SIGINT");
      await until(() => count(cli.stdout(), "s03 >> ") === 2);
      expect(cli.stdout()).toContain("(interrupted; press Ctrl-C again to exit)");
      expect(cli.stdout()).toMatch(/── aborted · 1 turn · \d tool calls?/);

      cli.child.stdin?.write("second prompt\n");
      await until(() => count(cli.stdout(), "s03 >> ") === 3);
      expect(cli.stdout()).toContain("Back again.");
      expect(cli.stdout()).toContain("── final_answer");
      expect(model.requests).toHaveLength(2);
      const sent = model.requests[1].body.messages;
      expect(historyProblems(sent)).toEqual([]);

      cli.child.kill("SIGINT");
      expect(await cli.exited).toBe(130);
      expect(cli.stderr()).not.toContain("error");
      return { sent, cli, cwd };
    }

    it("stops a run that waits for the model, then answers the next prompt, then exits 130", async () => {
      const { sent } = await interruptThenContinue({ kind: "hang" }, () => true);
      expect(sent).toEqual([
        {
          role: "user",
          content: [
            { type: "text", text: "first prompt" },
            { type: "text", text: "second prompt" },
          ],
        },
      ]);
    });

    it("stops a run mid-stream, then answers the next prompt, then exits 130", async () => {
      // about forty events a tenth of a second apart: Ctrl-C lands long before the last one
      const words = `Here is a long answer that streams in slowly. ${"More words arrive a few at a time. ".repeat(25)}The end.`;
      const slow = reply([text(words)], { eventDelayMs: 100 });
      const { sent, cli } = await interruptThenContinue(slow, (c) => c.stdout().includes("Here is a long answer"));
      expect(cli.stdout()).not.toContain("The end.");
      expect(sent.map((m) => m.role)).toEqual(["user"]); // the half-streamed turn was dropped
    });

    it("stops a running command, killing it, then answers the next prompt, then exits 130", async () => {
      const sleeper = reply([toolUse("bash", { command: "echo $$ > pid; sleep 30" }, "toolu_sleep")]);
      const pidFile = (cwd: string) => join(cwd, "pid");
      const { sent, cli, cwd } = await interruptThenContinue(
        sleeper,
        (_c, _m, dir) => existsSync(pidFile(dir)) && readFileSync(pidFile(dir), "utf8").endsWith("\n"),
      );
      const pid = Number(readFileSync(pidFile(cwd), "utf8"));
      expect(() => process.kill(pid, 0)).toThrow();
      expect(cli.stdout()).toContain("[interrupted; the process group was killed]");
      expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
      expect(sent[2].content).toEqual([
        expect.objectContaining({ type: "tool_result", tool_use_id: "toolu_sleep", is_error: true }),
        { type: "text", text: "second prompt" },
      ]);
    });
  });
});
