/**
 * What breaks a cache, each case as two runs of this chapter's loop on one session: the first reads
 * a big file and a smaller one, and answers; between the runs one thing changes (or, for the case kept, does not); the
 * second run's one turn shows what it read from the cache and what it wrote again. The text's table
 * is these figures (the readme test runs them), and the test of each case asserts what it shows.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ALL_TOOLS, type ToolMap, toolMap } from "@harness/s02-tool-dispatch";
import { sendStreamed } from "@harness/s03-streaming";
import { clearOldResults, withSummary } from "@harness/s08-compaction";
import { reply, ScriptedModel, textReply, toolUse } from "@harness/scripted-model";
import { appendUserText } from "@harness/shared";
import { agentLoop } from "../src/agent-loop.ts";
import { CacheMeter } from "../src/cache-meter.ts";
import { cached } from "../src/cached.ts";
import type { TokenCounts } from "../src/list-prices.ts";
import type { CacheTtl } from "../src/place-breakpoints.ts";
import { bigFile } from "./run-cli.ts";

/** The system prompt of both runs (the loop's default names the directory, whose name varies). */
export const SYSTEM = "You are a coding agent working in /tmp/s10-sample. Use the tools. Be brief.";

/** What may change between the two runs. */
interface Between {
  /** The second run's system prompt. */
  system?: string;
  /** The second run's tools. */
  tools?: ToolMap;
  /** Done to the history before the second prompt. */
  history?: (messages: MessageParam[]) => void;
  /** Milliseconds the clock moves on. */
  wait?: number;
  /** The lines of the first run's files (default 120 and 30: a prefix well over the minimum). */
  lines?: number;
  ttl?: CacheTtl;
}

/** One case: its name, and the change between the runs. */
export interface CacheBreaker {
  name: string;
  between: Between;
}

/** The cases of the text's table, the case kept first. */
export const CACHE_BREAKERS: readonly CacheBreaker[] = [
  { name: "nothing (the case kept)", between: {} },
  { name: "a timestamp in the system prompt", between: { system: `${SYSTEM} It is 10:01.` } },
  { name: "the tools in another order", between: { tools: toolMap([...ALL_TOOLS].reverse()) } },
  { name: "an old tool result cleared (s08)", between: { history: (messages) => void clearOldResults(messages, 1) } },
  {
    name: "a compaction (s08)",
    between: {
      history: (messages) => {
        const summary = `## Task\nRead big.txt.\n## Files touched\n${bigFile(60, "noted")}`;
        messages.splice(0, messages.length, ...withSummary(messages, messages.length, summary));
      },
    },
  },
  { name: "a prefix under the minimum", between: { lines: 1 } },
  { name: "six minutes between the runs", between: { wait: 6 * 60_000 } },
  { name: "six minutes, with --cache-ttl 1h", between: { wait: 6 * 60_000, ttl: "1h" } },
];

const read = (path: string) => reply([toolUse("read_file", { path })]);

/** Run the two runs of `breaker` and return the second run's turn, as the meter counts it. */
export async function secondRun(breaker: CacheBreaker): Promise<TokenCounts> {
  const cwd = mkdtempSync(join(tmpdir(), "s10-breakers-"));
  try {
    const { between } = breaker;
    writeFileSync(join(cwd, "big.txt"), bigFile(between.lines ?? 120));
    writeFileSync(join(cwd, "small.txt"), bigFile(Math.min(30, between.lines ?? 30), "small"));
    const clock = { now: 0 };
    const model = new ScriptedModel({
      script: [read("big.txt"), read("small.txt"), textReply("Read."), textReply("Again.")],
      cache: { clock: () => clock.now },
    });
    const meter = new CacheMeter();
    const send = cached(sendStreamed(model.client(), 1), { ttl: between.ttl ?? "5m" });
    const options = { model: "claude-sonnet-5-5", cwd, system: SYSTEM, emit: meter.observe };
    const messages: MessageParam[] = [{ role: "user", content: "Read big.txt" }];
    await agentLoop(send, messages, options);
    between.history?.(messages);
    clock.now += between.wait ?? 60_000;
    appendUserText(messages, "And again?");
    await agentLoop(send, messages, {
      ...options,
      system: between.system ?? SYSTEM,
      ...(between.tools ? { tools: between.tools } : {}),
    });
    return meter.turns.at(-1) as TokenCounts;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
