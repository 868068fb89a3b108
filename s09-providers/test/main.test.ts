/**
 * s09 through the real CLI, run in this process. One acceptance run of the offline demo (the demo
 * brain speaking each wire format, answering from real git output); every other run talks to a
 * scripted model served on 127.0.0.1 in the format `--provider` names, its replies written out
 * here: parallel reads and `--json`, the OpenAI variables, a session continued across providers,
 * `--compaction server`, a window kept and `/compact`, each provider's "too long" recovered, the
 * trace and the gate on the OpenAI formats, and a stream line that is not JSON (a child process).
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { readTrace, sentRequests, traceDir } from "@harness/s04-tracing";
import {
  estimateInputTokens,
  reply,
  ScriptedModel,
  type ScriptedModelOptions,
  startScriptedServer,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { afterEach, describe, expect, it } from "vitest";
import { sessionBrain } from "../../s08-compaction/test/session-brain.ts";
import { WIRE_FORMATS, type WireFormat } from "../src/provider-adapter.ts";
import { cleanEnv, project, runCli } from "./run-cli.ts";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const API = { anthropic: "messages", "openai-chat": "chat-completions", "openai-responses": "responses" } as const;

/** A scripted model served on 127.0.0.1, and the environment that sends `format`'s calls to it (a key for it alone). */
async function served(format: WireFormat, options: ScriptedModelOptions) {
  const model = new ScriptedModel(options);
  const server = await startScriptedServer(model);
  closers.push(server.close);
  const key = ["test", "key"].join("-");
  const env =
    format === "anthropic"
      ? cleanEnv({ ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: server.url })
      : cleanEnv({ OPENAI_API_KEY: key, OPENAI_BASE_URL: `${server.url}/v1` });
  return { model, env, url: server.url };
}

/** The scripted model's window in the "too long" runs: over two reads, under three. */
const WINDOW = 3000;

const branchCall = reply([toolUse("bash", { command: "git branch --show-current" })]);

describe("pnpm s09", () => {
  it("runs the offline demo on every wire format: the git branch from real git output, and advice for a prompt it does not know", async () => {
    for (const format of WIRE_FORMATS) {
      const cwd = project({}, "demo-branch");
      const { code, stdout, stderr } = await runCli(
        ["--provider", format, "--cwd", cwd, "--allow", "Bash(git branch:*)"],
        cleanEnv(),
        ["What is the current git branch?", "Tell me a joke"],
      );
      expect(stderr).toMatch(
        format === "anthropic" ? /offline scripted model \(no ANTHROPIC_API_KEY/ : `speaking ${format}`,
      );
      expect(stdout).toContain("bash: git branch --show-current");
      expect(stdout).toContain("The current branch is demo-branch.");
      expect(stdout).toContain("final_answer · 2 turns · 1 tool call");
      expect(stdout).toContain("I am the offline scripted model");
      if (format !== "anthropic") expect(stdout).toContain("set OPENAI_API_KEY");
      if (format !== "anthropic") expect(stdout).not.toContain("ANTHROPIC_API_KEY");
      expect(code).toBe(0);
    }
  }, 60_000);

  it.each(WIRE_FORMATS)(
    "runs parallel reads and prints the AgentLoopResult as JSON, the last line, with --provider %s",
    async (format) => {
      const { model, env } = await served(format, {
        script: [
          reply([toolUse("read_file", { path: "a.txt" }), toolUse("read_file", { path: "b.txt" })]),
          textReply("a.txt says alpha, b.txt says beta."),
        ],
      });
      const cwd = project({ "a.txt": "alpha\n", "b.txt": "beta\n" });
      const { code, stdout } = await runCli(
        ["--provider", format, "--cwd", cwd, "--json", "Read a.txt and b.txt"],
        env,
      );
      const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
      expect(result).toMatchObject({
        stopReason: "final_answer",
        turns: 2,
        toolCalls: 2,
        finalText: "a.txt says alpha, b.txt says beta.",
      });
      // both results went back, in the format's own words
      expect(model.requests.map((r) => r.api)).toEqual([API[format], API[format]]);
      const sent = JSON.stringify(model.requests[1].raw);
      expect(sent).toContain("alpha");
      expect(sent).toContain("beta");
      expect(code).toBe(0);
    },
    60_000,
  );

  it("talks to OPENAI_BASE_URL with OPENAI_API_KEY, over real HTTP, in the Responses format", async () => {
    const { model, env, url } = await served("openai-responses", {
      script: [
        reply([toolUse("edit_file", { path: "notes.txt", old_string: "draft", new_string: "final" })]),
        reply([toolUse("read_file", { path: "notes.txt" })]),
        textReply('I replaced "draft" with "final" in notes.txt.'),
      ],
    });
    const cwd = project({ "notes.txt": "draft\n" });
    const { code, stdout, stderr } = await runCli(
      [
        "--provider",
        "openai-responses",
        "--cwd",
        cwd,
        "--permission-mode",
        "acceptEdits",
        'In notes.txt, replace "draft" with "final", then read it back',
      ],
      env,
    );
    expect(stderr).toContain(`Using ${url}/v1 (OPENAI_BASE_URL from the shell) (openai-responses)`);
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("final\n");
    expect(stdout).toContain('I replaced "draft" with "final" in notes.txt.');
    expect(model.requests.map((r) => r.api)).toEqual(["responses", "responses", "responses"]);
    expect(JSON.stringify(model.requests[2].raw)).toContain("final"); // the file read back, as the model got it
    expect(model.requests[0].headers.authorization).toBe("Bearer test-key");
    expect(code).toBe(0);
  }, 60_000);

  it("refuses a wire format it does not speak, in one line, before any model call", async () => {
    const { code, stdout, stderr } = await runCli(["--provider", "gemini", "hi"], cleanEnv());
    expect(stderr).toBe(
      's09: error: --provider: "gemini" is not a wire format; use one of anthropic, openai-chat, openai-responses\n',
    );
    expect(stdout).toBe("");
    expect(code).toBe(1);
  }, 60_000);

  it("lists --provider in its help, beside every earlier option", async () => {
    const { code, stdout } = await runCli(["--help"], cleanEnv());
    expect(stdout).toMatch(/--provider P\s+the wire format: anthropic, openai-chat, openai-responses; default/);
    for (const option of ["--max-turns", "--offline", "--trace", "--permission-mode", "--allow"])
      expect(stdout).toContain(option);
    expect(code).toBe(0);
  }, 60_000);

  it("continues a session on another provider: the history the loop keeps is sent in each format's words", async () => {
    const model = new ScriptedModel({
      script: [
        branchCall,
        textReply("The current branch is demo-branch."),
        textReply("I told you the branch is demo-branch."),
        textReply("Still demo-branch."),
      ],
    });
    const server = await startScriptedServer(model);
    closers.push(server.close);
    const cwd = project({}, "demo-branch");
    const key = ["test", "key"].join("-");
    const env = cleanEnv({
      ANTHROPIC_API_KEY: key,
      ANTHROPIC_BASE_URL: server.url,
      OPENAI_API_KEY: key,
      OPENAI_BASE_URL: `${server.url}/v1`,
    });
    const first = await runCli(
      ["--provider", "anthropic", "--cwd", cwd, "--allow", "Bash(git branch:*)", "What is the current git branch?"],
      env,
    );
    expect(first.stdout).toContain("The current branch is demo-branch.");
    const callId = JSON.stringify(model.requests.at(-1)?.body.messages).match(/toolu_scripted_\w+/)?.[0];
    expect(callId).toBeDefined();
    expect(JSON.stringify(model.requests.at(-1)?.body.messages)).toContain("demo-branch"); // git's own output

    const chat = await runCli(
      ["--continue", "--provider", "openai-chat", "--cwd", cwd, "What did you just tell me?"],
      env,
    );
    expect(chat.code).toBe(0);
    const sentChat = model.requests.at(-1);
    expect(sentChat?.api).toBe("chat-completions");
    const messages = (sentChat?.raw ?? { messages: [] }) as {
      messages: { role: string; content?: unknown; tool_call_id?: string }[];
    };
    expect(messages.messages.find((m) => m.role === "tool")?.tool_call_id).toBe(callId);
    expect(JSON.stringify(messages.messages.filter((m) => m.role === "assistant"))).toContain(
      "The current branch is demo-branch.",
    );

    const responses = await runCli(
      ["--continue", "--provider", "openai-responses", "--cwd", cwd, "What did you just tell me?"],
      env,
    );
    expect(responses.code).toBe(0);
    const sentResponses = model.requests.at(-1);
    expect(sentResponses?.api).toBe("responses");
    const { input } = (sentResponses?.raw ?? { input: [] }) as { input: { type?: string; call_id?: string }[] };
    expect(input.filter((item) => item.call_id === callId).map((item) => item.type)).toEqual([
      "function_call",
      "function_call_output",
    ]);
    expect(JSON.stringify(input)).toContain("I told you the branch is demo-branch.");
    // one session on three wire formats: the first run's, resumed twice
    const id = first.stderr.match(/session ([0-9a-f-]{36}) →/)?.[1];
    expect(chat.stderr).toContain(`resumed session ${id}: 4 messages`);
    expect(responses.stderr).toContain(`resumed session ${id}: 6 messages`);
  }, 60_000);

  it("refuses --compaction server on an OpenAI format in one line, and sends the betas on anthropic", async () => {
    const refused = await runCli(["--provider", "openai-chat", "--compaction", "server", "hi"], cleanEnv());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "s09: error: --compaction server is the Messages API's context management, which this course sends only in that format, not openai-chat; use client, or --provider anthropic",
    );
    const { model, env } = await served("anthropic", { script: [textReply("Hello.")] });
    const { code } = await runCli(["--provider", "anthropic", "--compaction", "server", "hi"], env);
    expect(code).toBe(0);
    expect(model.requests[0].headers["anthropic-beta"]).toContain("compact-2026-01-12");
    expect(model.requests[0].body).toHaveProperty("context_management");
  }, 60_000);

  it("keeps a session longer than a small window going on openai-chat, and /compact works there", async () => {
    const files = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [
        `part-${i + 1}.txt`,
        `${Array.from({ length: 151 }, (_, k) => (i + 1) * 1000 + k).join("\n")}\n`,
      ]),
    );
    const cwd = project(files);
    const prompts = [
      "Note: the release codename is BLUE-HERON.",
      ...Array.from({ length: 6 }, (_, i) => `Read part-${i + 1}.txt and summarise it`),
      "/compact",
      "What is the release codename you noted?",
    ];
    const { model, env } = await served("openai-chat", { brain: sessionBrain, contextWindow: 4000 });
    const { code, stdout } = await runCli(
      ["--provider", "openai-chat", "--context-window", "4000", "--cwd", cwd],
      env,
      prompts,
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/^(?:s09 >> )?context: over the threshold: summarised \d+ messages/m);
    expect(stdout).toMatch(/^(?:s09 >> )?context: \/compact: summarised \d+ messages/m);
    expect(stdout).toContain("The release codename is BLUE-HERON.");
    expect(model.requests.every((r) => r.api === "chat-completions")).toBe(true);
  }, 60_000);

  it.each(WIRE_FORMATS)(
    "answers the provider's own 'too long' refusal on %s with one compaction and one resend",
    async (format) => {
      // three reads of about 700 tokens each; the harness believes the window is large, the model's is WINDOW
      const files = Object.fromEntries(
        ["a", "b", "c"].map((name) => [`${name}.txt`, `${name.repeat(60)}\n`.repeat(45)]),
      );
      const read = (path: string) => reply([toolUse("read_file", { path })]);
      const { model, env } = await served(format, {
        script: [
          read("a.txt"),
          textReply("a.txt read."),
          read("b.txt"),
          textReply("b.txt read."),
          read("c.txt"),
          textReply("## Task\n- a.txt and b.txt read"), // the summary, once the call after c.txt's read is refused
          textReply("c.txt read."),
        ],
        contextWindow: WINDOW,
      });
      const { code, stdout, stderr } = await runCli(["--provider", format, "--cwd", project(files)], env, [
        "Read a.txt",
        "Read b.txt",
        "Read c.txt",
      ]);
      expect(stderr).not.toContain("error");
      expect(code).toBe(0);
      expect(stdout).toMatch(
        /^context: the API refused the prompt as too long: summarised \d+ messages, kept \d+ \([\d,]+ → [\d,]+ tokens\)$/m,
      );
      expect(stdout).toContain("c.txt read.");
      expect(model.pending).toBe(0);
      // the read's answer was refused, then the summary, then the same request again, summarised
      expect(model.requests.slice(5).map((r) => r.api)).toEqual([API[format], API[format], API[format]]);
      expect(model.requests).toHaveLength(8);
    },
    60_000,
  );

  it.each(WIRE_FORMATS)(
    "on %s, takes on a window smaller than --context-window says, and a single prompt's reads go on past it",
    async (format) => {
      // one prompt, eight reads of about 130 tokens each; the model reads 1,500 tokens, the harness was told 20,000
      const reads = Array.from({ length: 8 }, (_, i) => reply([toolUse("read_file", { path: `part-${i + 1}.txt` })]));
      const turns = [...reads, textReply("Read all eight.")];
      const { model, env } = await served(format, {
        contextWindow: 1500,
        // a summary request is answered with a summary; every other request with the next turn
        brain: (request) =>
          JSON.stringify(request.messages.at(-1)).includes("Summarise this conversation")
            ? textReply("## Task\n- read part-1.txt to part-8.txt")
            : (turns.shift() ?? textReply("nothing left")),
      });
      const lines = `${Array.from({ length: 50 }, (_, k) => k).join("\n")}\n`;
      const files = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`part-${i + 1}.txt`, lines]));
      const { code, stdout } = await runCli(
        ["--provider", format, "--context-window", "20000", "--max-turns", "12", "--cwd", project(files)],
        env,
        ["Read part-1.txt to part-8.txt, one at a time"],
      );
      expect(code).toBe(0);
      // the Responses API names no window: the refused request bounds it
      const said = stdout.match(/^context: the API(?:'s window is| refused) [\d,]+ tokens.*, not 20,000\b.*$/gm);
      expect(said).toHaveLength(1);
      expect(stdout).toContain("── final_answer · 9 turns · 8 tool calls");
      expect(turns).toHaveLength(0);
      expect(model.requests.filter((r) => estimateInputTokens(r.body) > 1500)).toHaveLength(1); // the one refused
    },
    60_000,
  );

  it("answers a Chat tool call without a name with an error the model reads, and goes on (openai-chat)", async () => {
    const { model, env } = await served("openai-chat", {
      script: [reply([toolUse("", { command: "touch RAN" })]), textReply("I named no tool; sorry.")],
    });
    const cwd = project();
    const { code, stdout } = await runCli(["--provider", "openai-chat", "--cwd", cwd, "--json", "Touch RAN"], env);
    expect(code).toBe(0);
    expect(stdout).toContain('Error [unknown_tool]: there is no tool "missing_tool_name"');
    expect(JSON.parse(stdout.trim().split("\n").at(-1) ?? "")).toMatchObject({
      stopReason: "final_answer",
      toolCalls: 1,
      finalText: "I named no tool; sorry.",
    });
    const [, answered] = model.requests;
    expect(JSON.stringify(answered.body.messages.at(-1))).toContain('"is_error":true');
    expect(readdirSync(cwd)).toEqual([]); // nothing ran
  }, 60_000);

  it("answers two Responses calls that share one call_id each with an error, neither merged nor run (openai-responses)", async () => {
    const { model, env } = await served("openai-responses", {
      script: [
        reply([toolUse("bash", { command: "touch A" }, "call_1"), toolUse("bash", { command: "touch B" }, "call_1")]),
        textReply("Two calls, one id: I will call again."),
      ],
    });
    const cwd = project();
    const { code, stdout } = await runCli(
      ["--provider", "openai-responses", "--cwd", cwd, "--json", "Touch A and B"],
      env,
    );
    expect(code).toBe(0);
    const refused = "another call in this turn has its id (call_1): none of them ran";
    expect(stdout.split(refused)).toHaveLength(3); // both calls answered, each with the error
    expect(JSON.parse(stdout.trim().split("\n").at(-1) ?? "")).toMatchObject({
      stopReason: "final_answer",
      toolCalls: 2,
    });
    // the next request holds both calls, each under an id of its own, each answered
    const input = (model.requests[1].raw as { input: { type: string; call_id?: string }[] }).input;
    expect(input.filter((item) => item.type === "function_call").map((item) => item.call_id)).toEqual([
      "call_1",
      "call_1_2",
    ]);
    expect(input.filter((item) => item.type === "function_call_output").map((item) => item.call_id)).toEqual([
      "call_1",
      "call_1_2",
    ]);
    expect(readdirSync(cwd)).toEqual([]); // neither ran
  }, 60_000);

  it.each(["openai-chat", "openai-responses"] as const)(
    "traces and gates the calls of %s as of any format: the trace holds the course's requests, a denied call never runs",
    async (format) => {
      const cwd = project({}, "demo-branch");
      const { env } = await served(format, { script: [branchCall, textReply("I may not run git here.")] });
      const { code, stdout, stderr } = await runCli(
        ["--provider", format, "--cwd", cwd, "--trace=t1", "--deny", "Bash(git *)", "What is the current git branch?"],
        env,
      );
      expect(code).toBe(0);
      expect(stdout).toContain("Error [denied]");
      expect(stderr).not.toContain("error:");
      const trace = readTrace(join(traceDir(cwd, env), "t1.jsonl"));
      const sent = [...sentRequests(trace)].map(({ request }) => request);
      expect(sent).toHaveLength(2);
      // the course's own shape, whatever went over the wire: a tool_use answered by its tool_result
      const results = sent[1].messages.flatMap((m) => (typeof m.content === "string" ? [] : m.content));
      expect(results.find((b) => b.type === "tool_result")).toMatchObject({ is_error: true });
      expect(trace.records.at(-1)).toMatchObject({ type: "result" });
    },
    60_000,
  );

  it("says a stream line that is not JSON in one error line, the SDK printing nothing of its own (a child process)", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const first = { id: "c", object: "chat.completion.chunk", created: 0, model: "m" };
      res.write(`data: ${JSON.stringify({ ...first, choices: [{ index: 0, delta: { content: "Hi" } }] })}\n\n`);
      res.end("data: {not json\n\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const env = cleanEnv({ OPENAI_API_KEY: ["test", "key"].join("-"), OPENAI_BASE_URL: url });
    // a child of its own: the SDK's console is the process's, not the test runner's
    const child = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const run = spawn(
        process.execPath,
        ["--import", "tsx", join(import.meta.dirname, "../src/main.ts"), "--provider", "openai-chat", "hi"],
        { env },
      );
      let stderr = "";
      run.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      run.stdin.end();
      run.on("close", (status) => resolve({ status, stderr }));
    });
    const lines = child.stderr.trim().split("\n");
    expect(lines[0]).toMatch(/^Using http:\/\/127\.0\.0\.1:\d+\/v1 \(OPENAI_BASE_URL from the shell\) \(openai-chat\)/);
    expect(lines.filter((line) => !/^s09: session /.test(line)).slice(1)).toEqual([
      expect.stringMatching(/^s09: error: the stream failed after its content had started \(.*JSON/),
    ]);
    expect(child.status).toBe(1);
  }, 60_000);
});
