/**
 * s09 through the real CLI: a child process, the scripted model speaking each wire format, the
 * demo prompts answered from real tool output.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { readTrace, sentRequests, traceDir } from "@harness/s04-tracing";
import { demoBrain, ScriptedModel, startScriptedServer } from "@harness/scripted-model";
import { afterEach, describe, expect, it } from "vitest";
import { WIRE_FORMATS } from "../src/provider-adapter.ts";
import { cleanEnv, project, runCli } from "./run-cli.ts";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("pnpm s09", () => {
  it.each(WIRE_FORMATS)(
    "answers the git branch demo offline with --provider %s, from the real git output",
    async (format) => {
      const cwd = project({}, "demo-branch");
      const { code, stdout, stderr } = await runCli(
        ["--provider", format, "--cwd", cwd, "--allow", "Bash(git branch:*)", "What is the current git branch?"],
        cleanEnv(),
      );
      expect(stderr).toMatch(
        format === "anthropic" ? /offline scripted model \(no ANTHROPIC_API_KEY/ : `speaking ${format}`,
      );
      expect(stdout).toContain("bash: git branch --show-current");
      expect(stdout).toContain("The current branch is demo-branch.");
      expect(stdout).toContain("final_answer · 2 turns · 1 tool call");
      expect(code).toBe(0);
    },
    60_000,
  );

  it.each(WIRE_FORMATS)(
    "runs parallel reads and prints the AgentLoopResult as JSON with --provider %s",
    async (format) => {
      const cwd = project({ "a.txt": "alpha\n", "b.txt": "beta\n" });
      const { code, stdout } = await runCli(
        ["--offline", "--provider", format, "--cwd", cwd, "--json", "Read a.txt and b.txt"],
        cleanEnv(),
      );
      const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
      expect(result).toMatchObject({ stopReason: "final_answer", turns: 2, toolCalls: 2 });
      expect(result.finalText).toContain("- a.txt: 1 line, starting `alpha`");
      expect(result.finalText).toContain("- b.txt: 1 line, starting `beta`");
      expect(code).toBe(0);
    },
    60_000,
  );

  it("talks to OPENAI_BASE_URL with OPENAI_API_KEY, over real HTTP, in the Responses format", async () => {
    const model = new ScriptedModel({ brain: demoBrain });
    const server = await startScriptedServer(model);
    closers.push(server.close);
    const cwd = project({ "notes.txt": "draft\n" });
    const env = cleanEnv({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
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
    expect(stderr).toContain(`Using ${server.url}/v1 (OPENAI_BASE_URL from the shell) (openai-responses)`);
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("final\n");
    expect(stdout).toContain('I replaced "draft" with "final" in notes.txt.');
    expect(model.requests.map((r) => r.api)).toEqual(["responses", "responses", "responses"]);
    expect(model.requests[0].headers.authorization).toBe("Bearer sk-test");
    expect(code).toBe(0);
  }, 60_000);

  it.each(["openai-chat", "openai-responses"] as const)(
    "offline on %s, a prompt the scripted model does not know gets that format's variables as advice",
    async (format) => {
      const { code, stdout } = await runCli(["--offline", "--provider", format, "Tell me a joke"], cleanEnv());
      expect(code).toBe(0);
      expect(stdout).toContain("I am the offline scripted model");
      expect(stdout).toContain("set OPENAI_API_KEY");
      expect(stdout).not.toContain("ANTHROPIC_API_KEY");
    },
  );

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
    const model = new ScriptedModel({ brain: demoBrain });
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

    const chat = await runCli(
      ["--continue", "--provider", "openai-chat", "--cwd", cwd, "What did you just tell me?"],
      env,
    );
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain("The current branch is demo-branch.");
    const sentChat = model.requests.at(-1);
    expect(sentChat?.api).toBe("chat-completions");
    const messages = (sentChat?.raw ?? { messages: [] }) as { messages: { role: string; tool_call_id?: string }[] };
    expect(messages.messages.find((m) => m.role === "tool")?.tool_call_id).toBe(callId);

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
    const model = new ScriptedModel({ brain: demoBrain });
    const server = await startScriptedServer(model);
    closers.push(server.close);
    const env = cleanEnv({ ANTHROPIC_API_KEY: ["test", "key"].join("-"), ANTHROPIC_BASE_URL: server.url });
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
    const { code, stdout } = await runCli(
      ["--offline", "--provider", "openai-chat", "--context-window", "4000", "--cwd", cwd],
      cleanEnv(),
      prompts,
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/^(?:s09 >> )?context: over the threshold: summarised \d+ messages/m);
    expect(stdout).toMatch(/^(?:s09 >> )?context: \/compact: summarised \d+ messages/m);
    expect(stdout).toContain("The release codename is BLUE-HERON.");
  }, 60_000);

  it.each(["openai-chat", "openai-responses"] as const)(
    "traces and gates the calls of %s as of any format: the trace holds the course's requests, a denied call never runs",
    async (format) => {
      const cwd = project({}, "demo-branch");
      const env = cleanEnv();
      const { code, stdout, stderr } = await runCli(
        [
          "--offline",
          "--provider",
          format,
          "--cwd",
          cwd,
          "--trace=t1",
          "--deny",
          "Bash(git *)",
          "What is the current git branch?",
        ],
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
