/**
 * The troubleshooting and local-models pages quote what the course prints; this runs each case
 * and checks that the pages (English and Chinese) quote it as it is today. The cases run offline:
 * the real CLI of s01 (s03 for a stream) against small servers on 127.0.0.1 that answer as a
 * rejected key, a web page, an old server, a silent model, a model that never calls a tool, ...
 * would, against a port nothing listens on, and pnpm itself for its own lines. The runs that wait
 * (retries, timeouts) are child processes run at once; the others run the chapter's CLI in the
 * test's process, one at a time (testkit's runInProcess). Only what varies
 * from run to run is normalised: the test servers' address (written http://127.0.0.1:8080 in the
 * pages), the closed port (written as Ollama's, http://localhost:11434), temporary paths, the
 * scripted model's estimated token counts, and a timeout the test shortens to 1 s (the pages show
 * the default, DEFAULT_MODEL_TIMEOUT_SECONDS).
 *
 * When the course's messages change, this fails naming the line to update in the pages.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createClient,
  DEFAULT_MODEL_TIMEOUT_SECONDS,
  describeError,
  parseCliArgs,
  runChapterCli,
} from "@harness/shared";
import { findTestBrowser, runInProcess } from "@harness/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chapter as s01 } from "../../s01-agent-loop/src/main.ts";
import { REPO_ROOT } from "../src/find-chapters.ts";

const PAGES = {
  troubleshooting: ["docs/troubleshooting.md", "docs/troubleshooting.zh.md"],
  localModels: ["docs/local-models.md", "docs/local-models.zh.md"],
} as const;

/** How the pages write the test servers' address. */
const SERVER = "http://127.0.0.1:8080";
/** How the pages write an address nothing listens on: Ollama's, not started. */
const NOT_STARTED = "http://localhost:11434";
/** How the pages write a scratch directory. */
const PLAY = "/tmp/play";
const PROMPT = "What is the current git branch?";
/** Not a real key: split so that no scanner takes it for one. */
const FAKE_KEY = ["sk", "ant", "test", "not-a-real-key-000"].join("-");

/** What each test server answers to POST /v1/messages, by the first part of its path. */
const ANSWERS: Record<string, { status: number; type: string; body: string } | "silent" | "silent-stream"> = {
  "rejected-key": anthropicError(401, "authentication_error", "invalid x-api-key"),
  "web-page": { status: 200, type: "text/html", body: "<!doctype html><html><body><h1>Welcome</h1></body></html>" },
  "openai-json": {
    status: 200,
    type: "application/json",
    body: JSON.stringify({
      id: "chatcmpl-1",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }],
    }),
  },
  "no-such-path": { status: 404, type: "text/plain", body: "404 page not found" },
  "no-such-model": anthropicError(404, "not_found_error", "model 'qwen3-coder' not found"),
  "no-tool-support": anthropicError(
    400,
    "invalid_request_error",
    "registry.ollama.ai/library/gemma3:latest does not support tools",
  ),
  "text-only": {
    status: 200,
    type: "application/json",
    body: JSON.stringify({
      id: "msg_text_only",
      type: "message",
      role: "assistant",
      model: "local",
      content: [{ type: "text", text: "Run `git branch --show-current` to see the current branch." }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 14 },
    }),
  },
  silent: "silent",
  "silent-stream": "silent-stream",
};

/** The message a silent stream starts. */
const STARTED = {
  id: "msg_silent",
  type: "message",
  role: "assistant",
  model: "local",
  content: [],
  stop_reason: null,
  stop_sequence: null,
  usage: { input_tokens: 120, output_tokens: 1 },
};

function anthropicError(status: number, type: string, message: string) {
  return { status, type: "application/json", body: JSON.stringify({ type: "error", error: { type, message } }) };
}

let server: Server;
let base: string;
let play: string;
/** How many requests each test server got, by the first part of its path. */
const requests = new Map<string, number>();
/** A port nothing listens on: one the system gave, then closed. */
let closedPort: number;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const name = (request.url ?? "").split("/")[1];
      requests.set(name, (requests.get(name) ?? 0) + 1);
      const answer = ANSWERS[name];
      if (answer === "silent") return; // never answers
      if (answer === "silent-stream") {
        // a stream that starts as the Messages API's does, then says nothing more
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write(
          `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: STARTED })}\n\n`,
        );
        return;
      }
      if (!answer) return response.writeHead(500).end();
      response.writeHead(answer.status, { "content-type": answer.type }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  play = realpathSync(mkdtempSync(join(tmpdir(), "troubleshooting-")));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(play, { recursive: true, force: true });
});

/** A run's output, its lines normalised as the pages write them. */
interface Run {
  code: number | null;
  stdout: string[];
  stderr: string[];
}

/** This process's environment without the shell's keys, endpoint or model, and `env`. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(ANTHROPIC_|MODEL_ID$|DEBUG$|npm_|PNPM_)/.test(name)),
  );
  return { ...clean, NO_COLOR: "1", ...env };
}

/** Run a command from the repository root without the shell's keys, endpoint or model. */
function run(command: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(command, args, { cwd: REPO_ROOT, env: cleanEnv(env) });
  child.stdin.end();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk) => out.push(chunk));
  child.stderr.on("data", (chunk) => err.push(chunk));
  return new Promise((resolve) => {
    child.on("close", (code) => {
      resolve({ code, stdout: lines(Buffer.concat(out).toString()), stderr: lines(Buffer.concat(err).toString()) });
    });
  });
}

function lines(text: string): string[] {
  return text
    .split(base || "\u0000")
    .join(SERVER)
    .split(closedPort ? `http://127.0.0.1:${closedPort}` : "\u0000")
    .join(NOT_STARTED)
    .replace(/(http:\/\/127\.0\.0\.1:8080)\/[a-z-]+/g, "$1")
    .split(play || "\u0000")
    .join(PLAY)
    .split("\n")
    .filter((line) => line.trim() !== "");
}

/** A chapter's CLI against one of the test servers, with a key from the shell. */
function chapterAgainst(chapter: string, answer: keyof typeof ANSWERS, ...args: string[]): Promise<Run> {
  return run(process.execPath, ["--import", "tsx", `${chapter}/src/main.ts`, "--cwd", play, ...args, PROMPT], {
    ANTHROPIC_API_KEY: FAKE_KEY,
    ANTHROPIC_BASE_URL: `${base}/${answer}`,
  });
}

/** `node --import tsx s01-agent-loop/src/main.ts` run in this process, as `run` runs it in a child. */
async function s01Here(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const ran = await runInProcess((argv, io) => runChapterCli(s01, argv, io), args, cleanEnv(env));
  return { code: ran.code, stdout: lines(ran.stdout), stderr: lines(ran.stderr) };
}

/** s01 against one of the test servers, with a key from the shell, in this process. */
function s01Against(answer: keyof typeof ANSWERS, ...args: string[]): Promise<Run> {
  return s01Here(["--cwd", play, ...args, PROMPT], {
    ANTHROPIC_API_KEY: FAKE_KEY,
    ANTHROPIC_BASE_URL: `${base}/${answer}`,
  });
}

/** The scripted model's token counts are estimates that change with the paths in the prompt. */
function tokensAside(line: string): string {
  return line.replace(/~\d+ in \/ ~\d+ out tokens/, "~N in / ~N out tokens");
}

/** Every line must be quoted, as a whole line, in each of the pages (`as` normalises both sides). */
function expectQuoted(pages: readonly string[], quoted: string[], as: (line: string) => string = (line) => line): void {
  for (const page of pages) {
    const text = readFileSync(join(REPO_ROOT, page), "utf8");
    const pageLines = new Set(text.split("\n").map((line) => as(line.trimEnd())));
    expect(
      quoted.filter((line) => !pageLines.has(as(line))),
      `${page} should quote these lines as the course prints them`,
    ).toEqual([]);
  }
}

describe("what the troubleshooting page quotes", { timeout: 120_000 }, () => {
  describe.concurrent("runs that wait, in child processes at once", () => {
    it("nothing listening: could not reach, and why", async () => {
      // as the local-models page runs it: Ollama's variables, Ollama not started
      const refused = await run(process.execPath, ["--import", "tsx", "s01-agent-loop/src/main.ts", PROMPT], {
        ANTHROPIC_AUTH_TOKEN: "ollama",
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${closedPort}`,
        MODEL_ID: "qwen3-coder",
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr.at(-1)).toMatch(/\(ECONNREFUSED\) \(after retries\)$/);
      // a port the fetch standard blocks is refused before any connection: the line says so
      const blocked = await run(process.execPath, ["--import", "tsx", "s01-agent-loop/src/main.ts", PROMPT], {
        ANTHROPIC_API_KEY: FAKE_KEY,
        ANTHROPIC_BASE_URL: "http://127.0.0.1:6000",
      });
      expect(blocked.code).toBe(1);
      expectQuoted(PAGES.troubleshooting, [refused.stderr.at(-1)!, blocked.stderr.at(-1)!]);
      // the start line says which endpoint, model and key the run uses
      expectQuoted(PAGES.localModels, refused.stderr);
    });

    it("a server that never answers: --model-timeout, then one line", async () => {
      // the pages show the default limit; the test waits 1 s instead of DEFAULT_MODEL_TIMEOUT_SECONDS
      expect(parseCliArgs([], { cwd: play }).modelTimeoutSeconds).toBe(DEFAULT_MODEL_TIMEOUT_SECONDS);
      const [whole, streamed] = await Promise.all([
        chapterAgainst("s01-agent-loop", "silent", "--model-timeout", "1"),
        chapterAgainst("s03-streaming", "silent-stream", "--model-timeout", "1"),
      ]);
      expect([whole.code, streamed.code]).toEqual([1, 1]);
      const byDefault = (line: string) => line.replace(/ 1 s$/, ` ${DEFAULT_MODEL_TIMEOUT_SECONDS} s`);
      expect(whole.stderr.at(-1)).toMatch(/^s01: error: no response from .* within 1 s$/);
      expect(streamed.stderr.at(-1)).toMatch(/^s03: error: the stream from .* was silent for 1 s$/);
      expectQuoted(PAGES.troubleshooting, [byDefault(whole.stderr.at(-1)!), byDefault(streamed.stderr.at(-1)!)]);
      // a wait that ran out is not retried; s03 sends a stream that failed before its content twice more
      expect([requests.get("silent"), requests.get("silent-stream")]).toEqual([1, 3]);
    });

    it("pnpm's own lines: the command it runs, and [ELIFECYCLE] on a non-zero exit", async () => {
      const args = ["s01", "--offline", "--cwd", play, "--max-turns", "1", PROMPT];
      const plain = await run("pnpm", args);
      const silent = await run("pnpm", ["--reporter=silent", ...args]);
      expect([plain.code, silent.code]).toEqual([2, 2]);
      const echo = plain.stderr.find((line) => line.startsWith("$ node"));
      expect(echo).toBeDefined();
      expect(silent.stderr.some((line) => line.startsWith("$ node"))).toBe(false);
      expect(silent.stderr.at(-1)).toBe(plain.stderr.at(-1));
      // pnpm's two lines, and the chapter's own between them
      expectQuoted(PAGES.troubleshooting, [...plain.stderr, ...plain.stdout], tokensAside);
    });
  });

  describe("runs in the test's process, one at a time", () => {
    it("no key: the offline line, and the one --offline gives", () => {
      const none = createClient({ env: {}, envFile: join(play, "no.env") });
      const offline = createClient({
        env: { ANTHROPIC_API_KEY: FAKE_KEY },
        envFile: join(play, "no.env"),
        offline: true,
      });
      expect(none.kind).toBe("scripted");
      expectQuoted(PAGES.troubleshooting, [none.notice!, offline.notice!]);
    });

    it("a rejected key: one line naming where the key was read from, the shell or .env", async () => {
      const shell = await s01Against("rejected-key");
      expect(shell.code).toBe(1);
      const envFile = join(play, ".env");
      writeFileSync(envFile, `ANTHROPIC_API_KEY=${FAKE_KEY}\nANTHROPIC_BASE_URL=${base}/rejected-key\n`);
      const choice = createClient({ env: {}, envFile });
      const error = await choice.client.messages
        .create({ model: "m", max_tokens: 8, messages: [{ role: "user", content: "hi" }] })
        .catch((e: unknown) => e);
      const fromFile = `s01: error: ${describeError(error, choice)}`.replace(envFile, "/path/to/the/repository/.env");
      // the start line, then the error
      expect(shell.stderr).toHaveLength(2);
      expectQuoted(PAGES.troubleshooting, [...shell.stderr, fromFile]);
    });

    it("an endpoint that is not the Messages API: a 404 page, a web page, another API's JSON", async () => {
      const missing = await s01Against("no-such-path");
      const page = await s01Against("web-page");
      const openai = await s01Against("openai-json");
      for (const refused of [missing, page, openai]) {
        expect(refused.code).toBe(1);
        // an error, never an empty turn taken for an answer
        expect(refused.stdout).toEqual(["[turn 1]"]);
      }
      expect(missing.stderr[0]).toMatch(/^Using http:\/\/127\.0\.0\.1:8080 \(ANTHROPIC_BASE_URL from the shell\)/);
      expectQuoted(PAGES.troubleshooting, [...missing.stderr, page.stderr.at(-1)!, openai.stderr.at(-1)!]);
      expectQuoted(PAGES.localModels, [missing.stderr.at(-1)!]);
    });

    it("a model that answers in text and calls no tool", async () => {
      const textOnly = await s01Against("text-only");
      expect(textOnly.code).toBe(0);
      expect(textOnly.stdout.at(-1)).toMatch(/ 0 tool calls /);
      expectQuoted(PAGES.troubleshooting, textOnly.stdout);
    });

    it("the first run to compare a local model's with: the scripted model's, token counts aside", async () => {
      const scripted = await s01Here(["--offline", "--cwd", play, PROMPT]);
      expect(scripted.code).toBe(0);
      expect(scripted.stdout.at(-1)).toMatch(
        /^── final_answer · 2 turns · 1 tool call · ~\d+ in \/ ~\d+ out tokens \(estimated by the scripted model\)$/,
      );
      expectQuoted(PAGES.localModels, scripted.stdout, tokensAside);
    });

    it("a model the server does not have, and one that does not support tools", async () => {
      const noModel = await s01Against("no-such-model");
      const noTools = await s01Against("no-tool-support");
      expect([noModel.code, noTools.code]).toEqual([1, 1]);
      expectQuoted(PAGES.localModels, [noModel.stderr.at(-1)!, noTools.stderr.at(-1)!]);
    });

    it("pnpm's --reporter put after the script's name: an unknown option of the chapter", async () => {
      const misplaced = await s01Here(["--reporter=silent", PROMPT]);
      expect(misplaced.code).toBe(1);
      expectQuoted(PAGES.troubleshooting, [misplaced.stderr.at(-1)!]);
    });

    it("browser tests without a browser: one line, skipped, and what to install", () => {
      const printed: string[] = [];
      const browser = findTestBrowser({ env: { PATH: "" }, platform: "linux", print: (line) => printed.push(line) });
      expect(browser).toBeUndefined();
      expect(printed).toHaveLength(1);
      expectQuoted(PAGES.troubleshooting, printed);
    });
  });
});
