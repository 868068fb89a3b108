/**
 * s10 through the real CLI, on a scripted model the test holds (served on 127.0.0.1): what every
 * request carries, and what the cache read and wrote, turn by turn (the transcript's usage).
 */
import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";
import { SUMMARY_SYSTEM } from "@harness/s08-compaction";
import { reply, type ScriptStep, textReply, toolUse } from "@harness/scripted-model";
import { describe, expect, it } from "vitest";
import { bigFile, jsonResult, lastBlock, markers, s10Runner, sessionIdOf, turnCounts } from "./run-cli.ts";

const { serve, runHere, project, cleanEnv } = s10Runner();

const read = (path: string) => reply([toolUse("read_file", { path })]);
/** A session that reads a big file, then a small one, then answers: three turns. */
const threeTurns = (): ScriptStep[] => [read("big.txt"), read("small.txt"), textReply("Both read.")];
const files = { "big.txt": bigFile(120), "small.txt": "small\n" };
/** s08's summary request (its system prompt, marked as a block). */
const isSummary = (body: MessageCreateParams) => JSON.stringify(body.system).includes(SUMMARY_SYSTEM);
const sent = (model: { requests: { api: string; body: MessageCreateParams }[] }) =>
  model.requests.filter((r) => r.api === "messages").map((r) => r.body);

describe("pnpm s10", () => {
  it("marks the last tool, the system prompt and the last block; the tail marker moves each turn", async () => {
    const { model, env } = await serve({ script: threeTurns() });
    const cwd = project(files);
    const { code, stdout } = await runHere(["--cwd", cwd, "--json", "Read the files"], env);
    expect(code).toBe(0);
    const bodies = sent(model);
    expect(bodies).toHaveLength(3);
    for (const body of bodies) {
      expect(markers(body).length).toBeLessThanOrEqual(4);
      expect(markers(body)).toEqual([`tools.${(body.tools?.length ?? 0) - 1}`, "system.0", lastBlock(body)]);
    }
    // the tail marker stands on a later block each turn, and never on an earlier one
    expect(bodies.map(lastBlock)).toEqual(["messages.0.0", "messages.2.0", "messages.4.0"]);
    // the result JSON reports the reads and the writes
    const result = jsonResult(stdout);
    expect(result.usage.cacheReadInputTokens).toBeGreaterThan(0);
    expect(result.usage.cacheCreationInputTokens).toBeGreaterThan(0);
  });

  it("sends the system prompt and the tools byte for byte the same in every request, and across --continue", async () => {
    const { model, env } = await serve({ script: [...threeTurns(), read("small.txt"), textReply("Read again.")] });
    const cwd = project(files);
    expect((await runHere(["--cwd", cwd, "Read the files"], env)).code).toBe(0);
    const resumed = await runHere(["--cwd", cwd, "--continue", "Read small.txt again"], env);
    expect(resumed.code).toBe(0);
    const bodies = sent(model);
    expect(bodies).toHaveLength(5);
    for (const body of bodies) {
      expect(JSON.stringify(body.system)).toBe(JSON.stringify(bodies[0].system));
      expect(JSON.stringify(body.tools)).toBe(JSON.stringify(bodies[0].tools));
    }
    // the resumed process has a cache meter of its own, but the server's cache: it reads what the first run wrote
    const turns = turnCounts(cwd, env);
    expect(turns[3].read).toBe(turns[2].read + turns[2].written);
    expect(resumed.stdout).toMatch(/^cache: read [\d,]+ of [\d,]+ input tokens \((?:9\d|100)%\)/m);
  });

  it("reads the prefix the previous turn wrote, and writes only what is new", async () => {
    const { env } = await serve({ script: threeTurns() });
    const cwd = project(files);
    const { stdout } = await runHere(["--cwd", cwd, "Read the files"], env);
    const [first, second, third] = turnCounts(cwd, env);
    // the first request (tools, system, prompt) is under the 1,024-token minimum: nothing cached yet
    expect(first).toMatchObject({ read: 0, written: 0 });
    expect(second.read).toBe(0);
    expect(second.written).toBeGreaterThan(1024);
    expect(third.read).toBe(second.written);
    expect(third.written).toBeLessThan(100);
    expect(stdout).toContain(
      `cache: read ${third.read.toLocaleString("en-US")} of ${[first, second, third].reduce((n, t) => n + t.input + t.read + t.written, 0).toLocaleString("en-US")} input tokens`,
    );
    expect(stdout).toMatch(/· session \$\d+\.\d{4}, \$\d+\.\d{4} without the cache \(Claude Sonnet list prices\)$/m);
  });

  it("still reads the earlier prefix after a turn that adds 25 tool results, through a second trailing anchor", async () => {
    const many = Array.from({ length: 25 }, (_, i) => toolUse("read_file", { path: `f${i}.txt` }));
    const { model, env } = await serve({ script: [read("big.txt"), reply(many), textReply("Read them all.")] });
    const cwd = project({ ...files, ...Object.fromEntries(many.map((_, i) => [`f${i}.txt`, `file ${i}\n`])) });
    expect((await runHere(["--cwd", cwd, "Read everything"], env)).code).toBe(0);
    const bodies = sent(model);
    // the third request: 50 blocks past the second's tail, so that tail is marked again
    expect(markers(bodies[2])).toEqual(["tools.5", "system.0", "messages.2.0", "messages.4.24"]);
    const [, second, third] = turnCounts(cwd, env);
    expect(third.read).toBe(second.read + second.written);
  });

  it("sends no marker with --prompt-cache off, and the cache line reads nothing", async () => {
    const { model, env } = await serve({ script: threeTurns() });
    const cwd = project(files);
    const { stdout } = await runHere(["--cwd", cwd, "--prompt-cache", "off", "--json", "Read the files"], env);
    for (const body of sent(model)) expect(markers(body)).toEqual([]);
    expect(turnCounts(cwd, env).every((t) => t.read === 0 && t.written === 0)).toBe(true);
    expect(jsonResult(stdout).usage).not.toHaveProperty("cacheReadInputTokens");
    expect(stdout).toMatch(/^cache: read 0 of [\d,]+ input tokens \(0%\), wrote 0 · session \$(\S+), \$\1 without/m);
  });

  it("marks each breakpoint with --cache-ttl 1h for an hour", async () => {
    const { model, env } = await serve({ script: threeTurns() });
    await runHere(["--cwd", project(files), "--cache-ttl", "1h", "Read the files"], env);
    const [body] = sent(model);
    expect(body.system).toEqual([expect.objectContaining({ cache_control: { type: "ephemeral", ttl: "1h" } })]);
  });

  it("pays for exactly one new prefix after a compaction: the summary call marks no message, the next turn writes the new history once", async () => {
    const steps: ScriptStep[] = [
      read("big.txt"),
      read("small.txt"),
      textReply("Both read."),
      read("small.txt"),
      textReply("Again."),
    ];
    const { model, env } = await serve({
      brain: (request) =>
        isSummary(request) ? textReply(`## Task\n${bigFile(40, "kept")}`) : (steps.shift() ?? textReply("?")),
    });
    const cwd = project(files);
    const { code, stdout } = await runHere(["--cwd", cwd], env, "Read the files\n/compact\nRead small.txt again\n");
    expect(code).toBe(0);
    expect(stdout).toMatch(/context: \/compact: summarised \d+ messages/);
    const summary = model.requests.findIndex((r) => isSummary(r.body));
    // the summary call is a side call: only the stable prefix is marked
    expect(markers(model.requests[summary].body)).toEqual(["tools.5", "system.0"]);
    const [, , before, first, second] = turnCounts(cwd, env);
    expect(before.read).toBeGreaterThan(0);
    // after it, one new prefix: nothing of the old one is read, the new history is written once and then read
    expect(first.read).toBe(0);
    expect(first.written).toBeGreaterThan(1024);
    expect(second.read).toBe(first.written);
  });

  it("sends the session's id as prompt_cache_key on an OpenAI format, no marker, and reads cached_tokens", async () => {
    const { model, env } = await serve({ script: threeTurns() });
    const cwd = project(files);
    const { code, stdout } = await runHere(["--cwd", cwd, "--provider", "openai-chat", "Read the files"], env);
    expect(code).toBe(0);
    const id = sessionIdOf(cwd, env);
    for (const request of model.requests) {
      expect(request.api).toBe("chat-completions");
      expect((request.raw as { prompt_cache_key?: string }).prompt_cache_key).toBe(id);
      expect(JSON.stringify(request.raw)).not.toContain("cache_control");
    }
    const [, second, third] = turnCounts(cwd, env);
    expect(second.written + third.written).toBe(0); // OpenAI charges no write
    expect(third.read).toBeGreaterThanOrEqual(1024);
    expect(stdout).toMatch(/^cache: read [1-9][\d,]* of/m);
  });

  it("runs offline with no key, and says what it read from the cache", async () => {
    const cwd = project({ "README.md": "# Notes\n\nA sample project.\n" });
    const { code, stdout, stderr } = await runHere(["--cwd", cwd, "Read README.md and summarise it"], cleanEnv());
    expect(stderr).toMatch(/offline scripted model/);
    expect(stdout).toMatch(/^cache: read 0 of [\d,]+ input tokens \(0%\), wrote 0 · session/m);
    expect(code).toBe(0);
  });

  it("lists its options in its help, and refuses a bad one in one line before any model call", async () => {
    const help = await runHere(["--help"], cleanEnv());
    expect(help.stdout).toMatch(/--prompt-cache M\s+cache breakpoints on every request: on, off \(default on\)/);
    expect(help.stdout).toMatch(/--cache-ttl T\s+how long the cache keeps a prefix: 5m, 1h/);
    for (const option of ["--provider", "--compaction", "--continue", "--trace", "--allow"]) {
      expect(help.stdout).toContain(option);
    }
    const bad = await runHere(["--prompt-cache", "maybe", "hi"], cleanEnv());
    expect(bad.stderr).toBe('s10: error: --prompt-cache: "maybe" is not on or off\n');
    expect(bad.code).toBe(1);
    const ttl = await runHere(["--cache-ttl", "10m", "hi"], cleanEnv());
    expect(ttl.stderr).toBe('s10: error: --cache-ttl: "10m" is not a lifetime; use 5m or 1h\n');
  });
});
