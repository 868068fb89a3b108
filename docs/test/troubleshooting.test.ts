/**
 * The troubleshooting and local-models pages quote what the course prints; this runs each case
 * and checks that the pages (English and Chinese) quote it as it is today. The cases run offline:
 * the real CLI of s01 (s03 for a stream, s07 to s09 for sessions, the window and the OpenAI
 * formats) against small servers on 127.0.0.1 that answer as a rejected key, a web page, an old
 * server, a silent model, a model that never calls a tool, Ollama's, vLLM's and llama-server's
 * OpenAI-compatible endpoints ... would, against a port nothing listens on, against the scripted
 * model served over HTTP, and pnpm itself for its own lines. The CLI runs in this process (testkit's
 * `runInProcess`: the chapter's `main`, one run at a time) where no process boundary is the point;
 * pnpm's own lines and the REPL that holds a session open (another process) run as processes. Only what varies from run to run is
 * normalised: the test servers' address (written http://127.0.0.1:8080 in the pages, or as the
 * server each one stands for: http://localhost:11434/v1 for Ollama, ...), the closed port
 * (written as Ollama's, http://localhost:11434), temporary paths and the harness's home
 * (~/.harness), session ids and process ids, token counts (the scripted model's depend on the
 * paths in the prompt), and a timeout the test shortens to 1 s (the pages show the default,
 * DEFAULT_MODEL_TIMEOUT_SECONDS).
 *
 * When the course's messages change, this fails naming the line to update in the pages.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createClient, DEFAULT_MODEL_TIMEOUT_SECONDS, describeError, parseCliArgs } from "@harness/cli";
import { projectSlug } from "@harness/s04-tracing";
import { demoBrain, ScriptedModel, type ScriptedServer, startScriptedServer } from "@harness/scripted-model";
import { DEFAULT_MAX_TOKENS } from "@harness/shared";
import { type ChapterMain, findTestBrowser, runInProcess } from "@harness/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
/** How the pages write the sample projects of s07, s08 and s09 (each chapter's Try it makes one). */
const SAMPLES = { s07: "/tmp/s07-sample", s08: "/tmp/s08-sample", s09: "/tmp/s09-sample" } as const;
/** How the pages write the harness's home (HARNESS_HOME: the test gives the runs one of their own). */
const HARNESS_HOME = "~/.harness";
/** How the pages write each OpenAI-compatible server's address (the documented defaults). */
const OPENAI_SERVERS = {
  ollama: "http://localhost:11434",
  vllm: "http://localhost:8000",
  llamaServer: "http://127.0.0.1:8080",
} as const;
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
  // the OpenAI formats (s09): each server's own answer, as its source writes it
  "ollama-no-route": { status: 404, type: "text/plain", body: "404 page not found" },
  "ollama-no-model": openAiError(404, {
    message: "model 'qwen3-coder' not found",
    type: "not_found_error",
    param: null,
    code: null,
  }),
  "ollama-no-tools": openAiError(400, {
    message: "registry.ollama.ai/library/gemma3:latest does not support tools",
    type: "invalid_request_error",
    param: null,
    code: null,
  }),
  "vllm-no-model": openAiError(404, {
    message: "The model `qwen3-coder` does not exist.",
    type: "NotFoundError",
    param: null,
    code: 404,
  }),
  "vllm-rejected-key": { status: 401, type: "application/json", body: JSON.stringify({ error: "Unauthorized" }) },
  "vllm-too-long": openAiError(400, {
    message:
      "This model's maximum context length is 32768 tokens. However, your request has 33012 input tokens. Please reduce the length of the input messages. None",
    type: "BadRequestError",
    param: null,
    code: 400,
  }),
  "llama-rejected-key": openAiError(401, { code: 401, message: "Invalid API Key", type: "authentication_error" }),
  "llama-too-long": openAiError(400, {
    code: 400,
    message: "request (33012 tokens) exceeds the available context size (32768 tokens), try increasing it",
    type: "exceed_context_size_error",
    n_prompt_tokens: 33012,
    n_ctx: 32768,
  }),
  "openai-rejected-key": openAiError(401, {
    message:
      "Incorrect API key provided: sk-proj-********abcd. You can find your API key at https://platform.openai.com/account/api-keys.",
    type: "invalid_request_error",
    param: null,
    code: "invalid_api_key",
  }),
  "openai-no-model": openAiError(404, {
    message: "The model `gpt-5.9` does not exist or you do not have access to it.",
    type: "invalid_request_error",
    param: null,
    code: "model_not_found",
  }),
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

/** An error as the OpenAI-compatible servers send one: `{"error": …}`, each with its own fields. */
function openAiError(status: number, error: Record<string, unknown>) {
  return { status, type: "application/json", body: JSON.stringify({ error }) };
}

let server: Server;
let base: string;
/** Everything the runs write: the scratch directory, the samples, the harness's home. */
let root: string;
let play: string;
let home: string;
/** Each real directory, and how the pages write it (and its project slug). */
let places: [string, string][] = [];
/** The scripted model, served over HTTP as a local server would serve a model. */
let scriptedModel: ScriptedModel;
let scripted: ScriptedServer;
/** The sample projects (`sample`). */
let s09Sample: string;
let s08Sample: string;
let s07Sample: string;
/** A second project for s07, written as the same sample: its session gets a torn line. */
let s07Torn: string;
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
  root = realpathSync(mkdtempSync(join(tmpdir(), "troubleshooting-")));
  play = join(root, "play");
  home = join(root, "home");
  mkdirSync(play);
  places = [[home, HARNESS_HOME]];
  s09Sample = sample("s09-sample", SAMPLES.s09);
  s08Sample = sample("s08-sample", SAMPLES.s08);
  writeFileSync(join(s08Sample, "part-1.txt"), `${Array.from({ length: 151 }, (_, i) => 1000 + i).join("\n")}\n`);
  s07Sample = sample("s07-sample", SAMPLES.s07);
  s07Torn = sample("s07-torn", SAMPLES.s07);
  scriptedModel = new ScriptedModel({ brain: demoBrain });
  scripted = await startScriptedServer(scriptedModel);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await scripted?.close();
  rmSync(root, { recursive: true, force: true });
});

/**
 * A sample project as the chapter's Try it makes it (a git repository on `main`), written in the
 * pages as `shown`; several may stand for one.
 */
function sample(name: string, shown: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
  places.push([dir, shown], [projectSlug(dir), projectSlug(shown)]);
  return dir;
}

/** A run's output, its lines normalised as the pages write them. */
interface Run {
  code: number | null;
  stdout: string[];
  stderr: string[];
}

/**
 * This process's environment without the shell's keys, endpoints or model, taken as the file loads
 * (while a run in this process lasts, `process.env` is that run's).
 */
const CLEAN_ENV: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined && !/^(ANTHROPIC_|OPENAI_|MODEL_ID$|DEBUG$|HARNESS_HOME$|npm_|PNPM_)/.test(entry[0]),
  ),
);

/** The environment of a run: the clean one, in the test's home, with `env` over it. */
function runEnv(env: Record<string, string>): Record<string, string> {
  return { ...CLEAN_ENV, NO_COLOR: "1", HARNESS_HOME: home, ...env };
}

/** Start a command from the repository root without the shell's keys, endpoints or model, in the test's home. */
function start(command: string, args: string[], env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  return spawn(command, args, { cwd: REPO_ROOT, env: runEnv(env) });
}

/**
 * Run a command (see `start`) with nothing on stdin. `renames` are [address, shown] pairs applied
 * before the rest: a test server that stands for a named one.
 */
function run(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  renames: [string, string][] = [],
): Promise<Run> {
  const child = start(command, args, env);
  child.stdin.end();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk) => out.push(chunk));
  child.stderr.on("data", (chunk) => err.push(chunk));
  return new Promise((resolve) => {
    child.on("close", (code) => {
      const text = (chunks: Buffer[]) => lines(Buffer.concat(chunks).toString(), renames);
      resolve({ code, stdout: text(out), stderr: text(err) });
    });
  });
}

/** The runs in this process, one after another (`runInProcess` takes one at a time). */
let inProcess: Promise<unknown> = Promise.resolve();

/** Run `body` once the runs before it have ended: while a run lasts, `process.env` is that run's. */
function inTurn<T>(body: () => Promise<T>): Promise<T> {
  const turn = inProcess.then(body);
  inProcess = turn.catch(() => {});
  return turn;
}

/**
 * Run a chapter's CLI in this process, as `node --import tsx <chapter>/src/main.ts ...args` run from
 * the repository root with nothing on stdin would run (see `start`); `renames` as for `run`.
 */
function runHere(
  chapter: string,
  args: string[],
  env: Record<string, string> = {},
  renames: [string, string][] = [],
): Promise<Run> {
  return inTurn(async () => {
    const { main } = (await import(pathToFileURL(join(REPO_ROOT, chapter, "src", "main.ts")).href)) as {
      main: ChapterMain;
    };
    const { INIT_CWD: _, ...fromRoot } = runEnv(env); // runInProcess starts it from the repository root
    const ran = await runInProcess(main, args, fromRoot);
    return { code: ran.code, stdout: lines(ran.stdout, renames), stderr: lines(ran.stderr, renames) };
  });
}

function lines(text: string, renames: [string, string][] = []): string[] {
  let normal = text;
  for (const [from, to] of [...renames, ...places]) normal = normal.split(from).join(to);
  if (base)
    normal = normal
      .replace(new RegExp(`${escaped(base)}/[a-z-]+`, "g"), SERVER)
      .split(base)
      .join(SERVER);
  if (closedPort) normal = normal.split(`http://127.0.0.1:${closedPort}`).join(NOT_STARTED);
  if (play) normal = normal.split(play).join(PLAY);
  return normal.split("\n").filter((line) => line.trim() !== "");
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A chapter's CLI against one of the test servers, with a key from the shell. */
function chapterAgainst(chapter: string, answer: keyof typeof ANSWERS, ...args: string[]): Promise<Run> {
  return runHere(chapter, ["--cwd", play, ...args, PROMPT], {
    ANTHROPIC_API_KEY: FAKE_KEY,
    ANTHROPIC_BASE_URL: `${base}/${answer}`,
  });
}

/** s01 against one of the test servers, with a key from the shell. */
function s01Against(answer: keyof typeof ANSWERS, ...args: string[]): Promise<Run> {
  return chapterAgainst("s01-agent-loop", answer, ...args);
}

/** The scripted model's token counts are estimates that change with the paths in the prompt. */
function tokensAside(line: string): string {
  return line.replace(/~\d+ in \/ ~\d+ out tokens/, "~N in / ~N out tokens");
}

/** Session ids and process ids differ from run to run; so do token counts a server reports. */
function idsAside(line: string): string {
  return line
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
    .replace(/in process \d+/, "in process <pid>");
}

/** The numbers that follow from the token counts: the counts, how full the context is. */
function countsAside(line: string): string {
  return idsAside(line)
    .replace(/~?\d+ in \/ ~?\d+ out tokens/, "N in / N out tokens")
    .replace(/^context: [\d,]+ of ([\d,]+) tokens \(\d+%;/, "context: N of $1 tokens (N%;");
}

/** The prompt s09's samples run, and the options they run it with (the pages show these). */
const S09_ARGS = ["--provider", "openai-chat", "--cwd", SAMPLES.s09, "--allow", "Bash(git branch:*)"];

/**
 * s09 speaking Chat Completions to `url` (its OPENAI_BASE_URL), with `env` over a key and a model
 * from the shell; `shown` is how the pages write the address (`url` up to its `/v1`).
 */
function s09At(url: string, shown: string, args: string[] = [], env: Record<string, string> = {}): Promise<Run> {
  const argv = S09_ARGS.map((arg) => (arg === SAMPLES.s09 ? s09Sample : arg));
  return runHere(
    "s09-providers",
    [...argv, ...args, PROMPT],
    { OPENAI_API_KEY: "ollama", OPENAI_BASE_URL: url, MODEL_ID: "qwen3-coder", ...env },
    [[url.replace(/\/v1$/, ""), shown]],
  );
}

/** s09 against one of the test servers, standing for the server at `shown`. */
function s09Against(answer: keyof typeof ANSWERS, shown: string, v1 = true, env: Record<string, string> = {}) {
  return s09At(`${base}/${answer}${v1 ? "/v1" : ""}`, shown, [], env);
}

/** The pages' command for an s09 run: the variables, then `pnpm s09` with the sample's options. */
function s09Command(env: string, args: string[] = []): string {
  const quoted = [...S09_ARGS, ...args].map((arg) => (arg.includes("(") ? `'${arg}'` : arg));
  return `${env} pnpm s09 ${quoted.join(" ")} "${PROMPT}"`;
}

/** Each page must hold `text` somewhere (a command spread over lines is joined first). */
function expectHolds(pages: readonly string[], text: string): void {
  for (const page of pages) {
    const joined = readFileSync(join(REPO_ROOT, page), "utf8").replace(/ \\\n\s*/g, " ");
    expect(joined.includes(text), `${page} should hold: ${text}`).toBe(true);
  }
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

describe.concurrent("what the troubleshooting page quotes", { timeout: 120_000 }, () => {
  it("no key: the offline line, and the one --offline gives", () => {
    const scripted = () => new ScriptedModel({ brain: demoBrain });
    const none = createClient({ env: {}, envFile: join(play, "no.env"), scripted });
    const offline = createClient({
      env: { ANTHROPIC_API_KEY: FAKE_KEY },
      envFile: join(play, "no.env"),
      offline: true,
      scripted,
    });
    expect(none.kind).toBe("scripted");
    expectQuoted(PAGES.troubleshooting, [none.notice!, offline.notice!]);
  });

  it("a rejected key: one line naming where the key was read from, the shell or .env", async () => {
    const shell = await s01Against("rejected-key");
    expect(shell.code).toBe(1);
    const envFile = join(play, ".env");
    writeFileSync(envFile, `ANTHROPIC_API_KEY=${FAKE_KEY}\nANTHROPIC_BASE_URL=${base}/rejected-key\n`);
    // the SDK reads some defaults from process.env: not while a run in this process holds it
    const fromFile = await inTurn(async () => {
      const choice = createClient({ env: {}, envFile });
      const error = await choice.client.messages
        .create({ model: "m", max_tokens: 8, messages: [{ role: "user", content: "hi" }] })
        .catch((e: unknown) => e);
      return `s01: error: ${describeError(error, choice)}`.replace(envFile, "/path/to/the/repository/.env");
    });
    // the start line, then the error
    expect(shell.stderr).toHaveLength(2);
    expectQuoted(PAGES.troubleshooting, [...shell.stderr, fromFile]);
  });

  it("an endpoint that is not the Messages API: a 404 page, a web page, another API's JSON", async () => {
    const [missing, page, openai] = await Promise.all([
      s01Against("no-such-path"),
      s01Against("web-page"),
      s01Against("openai-json"),
    ]);
    for (const refused of [missing, page, openai]) {
      expect(refused.code).toBe(1);
      // an error, never an empty turn taken for an answer
      expect(refused.stdout).toEqual(["[turn 1]"]);
    }
    expect(missing.stderr[0]).toMatch(/^Using http:\/\/127\.0\.0\.1:8080 \(ANTHROPIC_BASE_URL from the shell\)/);
    expectQuoted(PAGES.troubleshooting, [...missing.stderr, page.stderr.at(-1)!, openai.stderr.at(-1)!]);
    expectQuoted(PAGES.localModels, [missing.stderr.at(-1)!]);
  });

  it("nothing listening: could not reach, and why", async () => {
    // as the local-models page runs it: Ollama's variables, Ollama not started
    const refused = await runHere("s01-agent-loop", [PROMPT], {
      ANTHROPIC_AUTH_TOKEN: "ollama",
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${closedPort}`,
      MODEL_ID: "qwen3-coder",
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr.at(-1)).toMatch(/\(ECONNREFUSED\) \(after retries\)$/);
    // a port the fetch standard blocks is refused before any connection: the line says so
    const blocked = await runHere("s01-agent-loop", [PROMPT], {
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
      s01Against("silent", "--model-timeout", "1"),
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

  it("a model that answers in text and calls no tool", async () => {
    const textOnly = await s01Against("text-only");
    expect(textOnly.code).toBe(0);
    expect(textOnly.stdout.at(-1)).toMatch(/ 0 tool calls /);
    expectQuoted(PAGES.troubleshooting, textOnly.stdout);
  });

  it("the first run to compare a local model's with: the scripted model's, token counts aside", async () => {
    const scripted = await runHere("s01-agent-loop", ["--offline", "--cwd", play, PROMPT]);
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

  it("pnpm's --reporter put after the script's name: an unknown option of the chapter", async () => {
    const misplaced = await runHere("s01-agent-loop", ["--reporter=silent", PROMPT]);
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

/** A chapter's CLI, offline, in a sample project, with `args` (nothing on stdin), in this process. */
function offline(chapter: string, cwd: string, ...args: string[]): Promise<Run> {
  return runHere(chapter, ["--offline", "--cwd", cwd, ...args]);
}

describe("what the pages quote from s07 to s09", { timeout: 180_000 }, () => {
  it("a local OpenAI-compatible server: the first run, as s09 prints it against a model served at /v1", async () => {
    const ollama = `${OPENAI_SERVERS.ollama}/v1`;
    const [sized, byDefault] = await Promise.all([
      s09At(`${scripted.url}/v1`, OPENAI_SERVERS.ollama, ["--context-window", "64000"]),
      s09At(`${scripted.url}/v1`, OPENAI_SERVERS.ollama),
    ]);
    expect([sized.code, byDefault.code]).toEqual([0, 0]);
    // the requests went where the SDK sends them, with the key as a bearer token
    expect(new Set(scriptedModel.requests.map((request) => request.path))).toEqual(new Set(["/v1/chat/completions"]));
    expect(scriptedModel.requests.every((request) => request.headers.authorization === "Bearer ollama")).toBe(true);
    // each turn asks for up to DEFAULT_MAX_TOKENS of answer: the vLLM paragraph says so
    const asked = scriptedModel.requests.map(
      (request) => (request.raw as { max_completion_tokens?: number }).max_completion_tokens,
    );
    expect(asked).toContain(DEFAULT_MAX_TOKENS);
    expectHolds(PAGES.localModels, `${DEFAULT_MAX_TOKENS.toLocaleString("en-US")} token`);
    expect(sized.stderr[0]).toBe(
      `Using ${ollama} (OPENAI_BASE_URL from the shell) (openai-chat), model qwen3-coder, with OPENAI_API_KEY from the shell.`,
    );
    expect(sized.stdout.at(-1)).toMatch(/^context: [\d,]+ of 56,000 tokens \(\d+%; window 64,000, /);
    // a model s08's table does not know gets its default window
    expect(byDefault.stdout.at(-1)).toMatch(/^context: [\d,]+ of 24,000 tokens \(\d+%; window 32,000, /);
    expectQuoted(PAGES.localModels, [...sized.stderr, ...sized.stdout, byDefault.stdout.at(-1)!], countsAside);
    expectHolds(
      PAGES.localModels,
      s09Command(`OPENAI_BASE_URL=${ollama} OPENAI_API_KEY=ollama MODEL_ID=qwen3-coder`, ["--context-window", "64000"]),
    );
  });

  it("a local OpenAI-compatible server: what failure looks like, in each server's own words", async () => {
    const { ollama, vllm, llamaServer } = OPENAI_SERVERS;
    const runs = await Promise.all([
      s09Against("ollama-no-route", ollama, false),
      s09Against("ollama-no-model", ollama),
      s09Against("ollama-no-tools", ollama),
      s09Against("vllm-no-model", vllm),
    ]);
    runs.push(
      ...(await Promise.all([s09Against("vllm-rejected-key", vllm), s09Against("llama-rejected-key", llamaServer)])),
    );
    const tooLong = await Promise.all([s09Against("vllm-too-long", vllm), s09Against("llama-too-long", llamaServer)]);
    for (const failed of runs) {
      expect(failed.code).toBe(1);
      expect(failed.stderr.at(-1)).toMatch(/^s09: error: http:\/\/(localhost|127\.0\.0\.1):\d+(\/v1)? answered /);
    }
    expectQuoted(
      PAGES.localModels,
      runs.map((failed) => failed.stderr.at(-1)!),
    );
    // s09 reads vLLM's and llama-server's words for "too long" too: the keeper tries to compact;
    // a prompt too long on its own leaves nothing to summarise, and the run stops with context_overflow
    for (const refused of tooLong) {
      expect(refused.code).toBe(5);
      expect(refused.stdout).toContain("context: compaction failed (1 in a row): there is nothing to summarise yet");
      expect(refused.stdout.at(-1)).toMatch(/^── context_overflow · 0 turns/);
      expectQuoted(PAGES.localModels, refused.stdout);
    }
  });

  it("an OpenAI-format endpoint that rejects the key, or has no such model or path", async () => {
    const [rejected, noModel] = await Promise.all([
      s09Against("openai-rejected-key", SERVER, true, { MODEL_ID: "gpt-5.5" }),
      s09Against("openai-no-model", SERVER, true, { MODEL_ID: "gpt-5.9" }),
    ]);
    expect([rejected.code, noModel.code]).toEqual([1, 1]);
    expect(rejected.stderr[0]).toMatch(/^Using http:\/\/127\.0\.0\.1:8080\/v1 \(OPENAI_BASE_URL from the shell\)/);
    expect(rejected.stderr.at(-1)).toMatch(/; the key was rejected \(OPENAI_API_KEY from the shell\)$/);
    expectQuoted(PAGES.troubleshooting, [rejected.stderr[0], rejected.stderr.at(-1)!, noModel.stderr.at(-1)!]);
    // the same base URL without /v1, at Ollama: the local-models page's line again
    const noRoute = await s09Against("ollama-no-route", OPENAI_SERVERS.ollama, false);
    expectQuoted(PAGES.troubleshooting, [noRoute.stderr.at(-1)!]);
  });

  it("s08: a prompt that cannot fit the window ends with context_overflow, exit status 5", async () => {
    const args = ["--context-window", "600", "Read part-1.txt and summarise it"];
    const overflow = await offline("s08-compaction", s08Sample, ...args);
    expect(overflow.code).toBe(5);
    expect(overflow.stdout.at(-1)).toMatch(/^── context_overflow · /);
    expect(overflow.stdout.some((line) => line.startsWith("context: compaction failed"))).toBe(true);
    expectQuoted(PAGES.troubleshooting, overflow.stdout);
    expectHolds(
      PAGES.troubleshooting,
      `pnpm s08 --offline --cwd ${SAMPLES.s08} ${args.slice(0, 2).join(" ")} "${args[2]}"`,
    );
  });

  it("s07: a session another process has open is forked, and a torn last line is cut off", async () => {
    const first = await offline("s07-sessions", s07Sample, "--allow", "Bash(git branch:*)", PROMPT);
    expect(first.code).toBe(0);
    // a REPL on the session holds it until its input ends
    const holder = start(process.execPath, [
      "--import",
      "tsx",
      "s07-sessions/src/main.ts",
      "--offline",
      "--cwd",
      s07Sample,
      "--continue",
    ]);
    let said = "";
    holder.stderr.on("data", (chunk) => {
      said += chunk;
    });
    const closed = new Promise((resolve) => holder.on("close", resolve));
    await expect.poll(() => said, { timeout: 60_000, interval: 50 }).toContain("resumed session");
    const second = await offline("s07-sessions", s07Sample, "--continue", "What did you just tell me?");
    holder.stdin.end();
    await closed;
    expect(second.code).toBe(0);
    expect(second.stderr[1]).toMatch(
      new RegExp(`^s07: session \\S+ is open in process ${holder.pid}: forked it, so neither loses a line$`),
    );
    expectQuoted(PAGES.troubleshooting, second.stderr.slice(1), idsAside);

    // a write cut short: the last line of the transcript is not whole
    expect((await offline("s07-sessions", s07Torn, "--allow", "Bash(git branch:*)", PROMPT)).code).toBe(0);
    const sessions = join(home, "projects", projectSlug(s07Torn), "sessions");
    const [transcript] = readdirSync(sessions).filter((name) => name.endsWith(".jsonl"));
    appendFileSync(join(sessions, transcript), '{"type":"message","id":"m');
    const resumed = await offline("s07-sessions", s07Torn, "--continue", "What did you just tell me?");
    expect(resumed.code).toBe(0);
    expect(resumed.stderr.at(-1)).toMatch(
      /^s07: skipped line \d+, not whole \(25 bytes: a write cut short\): cut it off$/,
    );
    // cut off, then written on: every line is whole again
    const records = readFileSync(join(sessions, transcript), "utf8").trimEnd().split("\n");
    expect(records.every((record) => typeof JSON.parse(record) === "object")).toBe(true);
    expectQuoted(PAGES.troubleshooting, resumed.stderr.slice(1), idsAside);
  });
});
