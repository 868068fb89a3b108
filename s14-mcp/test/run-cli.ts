/**
 * s14's command line run in this process (testkit's `runHere`) or in a child (`startCli`, to press
 * Ctrl-C), against a scripted model served on 127.0.0.1 that the test holds: scripted step by step
 * (`serve`), or the demo brain (`serveBrain`, for the runs the offline demo makes). What each
 * request carried is read off the model.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";
import { demoBrain, ScriptedModel, type ScriptStep, startScriptedServer } from "@harness/scripted-model";
import type { AgentLoopResult } from "@harness/shared";
import { type CliRunner, cliRunner } from "@harness/testkit";

import { afterEach } from "vitest";
import { main } from "../src/main.ts";

export { lastResults, toolNames, toolResultText } from "@harness/testkit";

/** The chapter's runner, and a scripted model served for it. */
export function s14Runner(): CliRunner & {
  serve(steps: ScriptStep[]): Promise<{ model: ScriptedModel; env: NodeJS.ProcessEnv }>;
  serveBrain(): Promise<{ model: ScriptedModel; env: NodeJS.ProcessEnv }>;
} {
  const runner = cliRunner("s14-mcp", { main });
  const servers: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  const served = async (model: ScriptedModel) => {
    const server = await startScriptedServer(model);
    servers.push(server);
    return { model, env: runner.cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url }) };
  };
  return {
    ...runner,
    serve: (steps) => served(new ScriptedModel({ script: steps })),
    serveBrain: () => served(new ScriptedModel({ brain: demoBrain })),
  };
}

/** Write an `.mcp.json`-shaped file of `servers` into `dir`; its path. */
export function mcpFile(dir: string, servers: Record<string, unknown>, name = "servers.json"): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ mcpServers: servers }));
  return path;
}

/** The Messages API requests the model got, in order. */
export function sent(model: ScriptedModel): MessageCreateParams[] {
  return model.requests.filter((r) => r.api === "messages").map((r) => r.body);
}

/** The AgentLoopResult `--json` printed. */
export function jsonResult(stdout: string): AgentLoopResult<string> {
  return JSON.parse(stdout.split("\n").find((line) => line.startsWith('{"stopReason"')) ?? "null");
}
