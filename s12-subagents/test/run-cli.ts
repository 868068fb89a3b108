/**
 * s12's command line run in this process (testkit's `runHere`) or in a child (`startCli`, to press
 * Ctrl-C), against a scripted model served on 127.0.0.1 that the test holds. Parent and children
 * talk to the same model, and children run at once, so the model answers by conversation: each
 * request is answered from the steps of the conversation it belongs to, known by its first message
 * (the user's prompt for the parent, the task's prompt for a child).
 */
import type { MessageCreateParams, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { listSessions, sessionsDir } from "@harness/s07-sessions";
import { ScriptedModel, type ScriptStep, startScriptedServer, textReply } from "@harness/scripted-model";
import type { AgentLoopResult } from "@harness/shared";
import { type CliRunner, cliRunner } from "@harness/testkit";

import { afterEach } from "vitest";
import { main } from "../src/main.ts";

export { lastResults, toolNames, toolResultText } from "@harness/testkit";

/** The text of a request's first message: whose conversation it is. */
export function firstText(body: MessageCreateParams): string {
  const first = body.messages[0] as MessageParam;
  if (typeof first.content === "string") return first.content;
  return first.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}

/** The chapter's runner, and a server whose model answers each conversation from its own steps. */
export function s12Runner(): CliRunner & {
  serve(conversations: Record<string, ScriptStep[]>): Promise<{ model: ScriptedModel; env: NodeJS.ProcessEnv }>;
} {
  const runner = cliRunner("s12-subagents", { main });
  const servers: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  return {
    ...runner,
    async serve(conversations) {
      const queues = new Map(Object.entries(conversations).map(([start, steps]) => [start, [...steps]]));
      const model = new ScriptedModel({
        brain: (request) => {
          const start = firstText(request);
          const key = [...queues.keys()].find((k) => start.startsWith(k));
          return (key && queues.get(key)?.shift()) || textReply(`(no step left for "${start.slice(0, 40)}")`);
        },
      });
      const server = await startScriptedServer(model);
      servers.push(server);
      return { model, env: runner.cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url }) };
    },
  };
}

/** The Messages API requests of the conversation that starts with `start`, in order. */
export function sentIn(model: ScriptedModel, start: string): MessageCreateParams[] {
  return model.requests.filter((r) => r.api === "messages" && firstText(r.body).startsWith(start)).map((r) => r.body);
}

/** The system prompt of a request, as one string. */
export function systemText(body: MessageCreateParams): string {
  const { system } = body;
  return typeof system === "string" ? system : (system ?? []).map((b) => b.text).join("\n");
}

/** The AgentLoopResult `--json` printed. */
export function jsonResult(stdout: string): AgentLoopResult<string> {
  return JSON.parse(stdout.split("\n").find((line) => line.startsWith('{"stopReason"')) ?? "null");
}

/** The newest session of `cwd`: its id and transcript. */
export function newestSession(cwd: string, env: NodeJS.ProcessEnv): { id: string; path: string } {
  const [newest] = listSessions(sessionsDir(cwd, env));
  return { id: newest.id, path: newest.path };
}
