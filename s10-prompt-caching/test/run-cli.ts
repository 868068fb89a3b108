/**
 * s10's command line run in this process (testkit's `runHere`), against a scripted model served on
 * 127.0.0.1 that the test holds: the requests it received, and its prompt cache, which outlives
 * one run as a server's does (so `--continue` can read what the run before it wrote). What each
 * turn read and wrote is read back from the session's transcript, where s07 keeps every
 * response's usage.
 */

import { readFileSync } from "node:fs";
import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";
import { listSessions, sessionsDir } from "@harness/s07-sessions";
import { ScriptedModel, type ScriptedModelOptions, startScriptedServer } from "@harness/scripted-model";
import type { AgentLoopResult, TokenUsage } from "@harness/shared";
import { type CliRunner, cliRunner } from "@harness/testkit";
import { afterEach } from "vitest";
import { countsOf } from "../src/cache-meter.ts";
import type { TokenCounts } from "../src/list-prices.ts";
import { main } from "../src/main.ts";

/** The chapter's runner, and a server for each test's scripted model (closed after the test). */
export function s10Runner(): CliRunner & {
  serve(
    options: ScriptedModelOptions,
  ): Promise<{ model: ScriptedModel; env: NodeJS.ProcessEnv; clock: { now: number } }>;
} {
  const runner = cliRunner("s10-prompt-caching", { main });
  const servers: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  return {
    ...runner,
    async serve(options) {
      const clock = { now: 0 };
      const model = new ScriptedModel({ cache: { clock: () => clock.now }, ...options });
      const server = await startScriptedServer(model);
      servers.push(server);
      const env = runner.cleanEnv({
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: server.url,
        OPENAI_API_KEY: "test-key",
        OPENAI_BASE_URL: `${server.url}/v1`,
      });
      return { model, env, clock };
    },
  };
}

/**
 * Each turn's cache counts, in order, from the newest session of `cwd`: its lines as written (s07's
 * reader keeps only the usage fields it knows, which the cache's are not among).
 */
export function turnCounts(cwd: string, env: NodeJS.ProcessEnv): TokenCounts[] {
  const [newest] = listSessions(sessionsDir(cwd, env));
  return readFileSync(newest.path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .flatMap((line) => {
      const record = JSON.parse(line) as { usage?: TokenUsage };
      return record.usage ? [countsOf(record.usage)] : [];
    });
}

/** The AgentLoopResult `--json` printed (its line; the lines after each answer follow it). */
export function jsonResult(stdout: string): AgentLoopResult<string> {
  return JSON.parse(stdout.split("\n").find((line) => line.startsWith('{"stopReason"')) ?? "null");
}

/** The id of the newest session of `cwd`. */
export function sessionIdOf(cwd: string, env: NodeJS.ProcessEnv): string {
  return listSessions(sessionsDir(cwd, env))[0].id;
}

/** Where a request carries `cache_control`: `tools.N`, `system.N`, `messages.M.N`, or `request`. */
export function markers(body: MessageCreateParams): string[] {
  const found: string[] = [];
  const marked = (block: unknown) => typeof block === "object" && block !== null && "cache_control" in block;
  (body.tools ?? []).forEach((tool, i) => {
    if (marked(tool)) found.push(`tools.${i}`);
  });
  if (Array.isArray(body.system)) {
    body.system.forEach((block, i) => {
      if (marked(block)) found.push(`system.${i}`);
    });
  }
  body.messages.forEach((message, m) => {
    if (typeof message.content === "string") return;
    message.content.forEach((block, i) => {
      if (marked(block)) found.push(`messages.${m}.${i}`);
    });
  });
  if ((body as { cache_control?: unknown }).cache_control) found.push("request");
  return found;
}

/** The position of the last block of the last message, as `markers` names it. */
export function lastBlock(body: MessageCreateParams): string {
  const m = body.messages.length - 1;
  const content = body.messages[m].content;
  return `messages.${m}.${typeof content === "string" ? 0 : content.length - 1}`;
}

/** Files of `n` numbered lines each, for a read that makes a prefix long enough to cache. */
export function bigFile(lines: number, word = "line"): string {
  return `${Array.from({ length: lines }, (_, i) => `${word} ${i + 1} of the sample file`).join("\n")}\n`;
}
