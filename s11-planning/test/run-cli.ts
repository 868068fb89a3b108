/**
 * s11's command line run in this process (testkit's `runHere`) or in a child (`startCli`, to kill
 * it), against a scripted model served on 127.0.0.1 that the test holds: what each request carried,
 * what the cache read and wrote (the transcript keeps each response's usage), and the lists the
 * tests write.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";
import { listSessions, sessionsDir } from "@harness/s07-sessions";
import { countsOf, type TokenCounts } from "@harness/s10-prompt-caching";
import { ScriptedModel, type ScriptedModelOptions, startScriptedServer, toolUse } from "@harness/scripted-model";
import type { AgentLoopResult, TokenUsage } from "@harness/shared";
import { type CliRunner, cleanUpAfter, cliRunner, type RunningCli, until } from "@harness/testkit";
import { afterEach } from "vitest";
import { main } from "../src/main.ts";
import type { Todo } from "../src/parse-todos.ts";

export { lastResults } from "@harness/testkit";

/** The chapter's runner, and a server for each test's scripted model (closed after the test). */
export function s11Runner(): CliRunner & {
  serve(options: ScriptedModelOptions): Promise<{ model: ScriptedModel; env: NodeJS.ProcessEnv }>;
} {
  const runner = cliRunner("s11-planning", { main });
  const servers: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  return {
    ...runner,
    async serve(options) {
      const model = new ScriptedModel(options);
      const server = await startScriptedServer(model);
      servers.push(server);
      return { model, env: runner.cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url }) };
    },
  };
}

/** Three items: one completed, one in progress, one pending. */
export const OPEN: Todo[] = [
  { content: "Read the notes", status: "completed", activeForm: "Reading the notes" },
  { content: "Run the tests", status: "in_progress", activeForm: "Running the tests" },
  { content: "Fix the failing test", status: "pending", activeForm: "Fixing the failing test" },
];

/** OPEN one step on: the tests run, the fix in progress. */
export const NEXT: Todo[] = OPEN.map((item, i) => ({ ...item, status: i < 2 ? "completed" : "in_progress" }));

/** Every item completed. */
export const DONE: Todo[] = OPEN.map((item) => ({ ...item, status: "completed" }));

/** A todo_write call sending `todos` (a list, or anything else the model might send). */
export const todoWrite = (todos: unknown, id?: string) => toolUse("todo_write", { todos }, id);

/** The Messages API requests the model received, in order. */
export function sent(model: ScriptedModel): MessageCreateParams[] {
  return model.requests.filter((r) => r.api === "messages").map((r) => r.body);
}

/** The AgentLoopResult `--json` printed, with s11's `todos`. */
export function jsonResult(stdout: string): AgentLoopResult<string> & { todos: Todo[] } {
  return JSON.parse(stdout.split("\n").find((line) => line.startsWith('{"stopReason"')) ?? "null");
}

/** The newest session of `cwd`: its id and transcript. */
export function newestSession(cwd: string, env: NodeJS.ProcessEnv): { id: string; path: string } {
  const [newest] = listSessions(sessionsDir(cwd, env));
  return { id: newest.id, path: newest.path };
}

/** Each turn's cache counts, in order, from the newest session of `cwd` (its lines as written). */
export function turnCounts(cwd: string, env: NodeJS.ProcessEnv): TokenCounts[] {
  return readFileSync(newestSession(cwd, env).path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .flatMap((line) => {
      const record = JSON.parse(line) as { usage?: TokenUsage };
      return record.usage ? [countsOf(record.usage)] : [];
    });
}

/** A file of `lines` numbered lines: a read that makes a prefix long enough to cache. */
export function bigFile(lines: number): string {
  return `${Array.from({ length: lines }, (_, i) => `line ${i + 1} of the sample file`).join("\n")}\n`;
}

/** The process group of the command `cli` started whose line matches `pattern`, once it runs; killed after the test. */
export async function toolProcess(cli: Pick<RunningCli, "child">, pattern: RegExp): Promise<number> {
  let pgid: number | undefined;
  await until(`${pattern} to run`, () => {
    const out = execFileSync("ps", ["-A", "-o", "pid=,ppid=,pgid=,args="], { encoding: "utf8" });
    for (const line of out.split("\n")) {
      const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(line);
      if (m && Number(m[2]) === cli.child.pid && pattern.test(m[4])) pgid = Number(m[3]);
    }
    return pgid !== undefined;
  });
  cleanUpAfter(() => {
    try {
      process.kill(-(pgid as number), "SIGKILL");
    } catch {} // already gone
  });
  return pgid as number;
}
