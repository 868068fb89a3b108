/**
 * What compaction buys (s08). One scripted session of about 200 turns (model calls), run through
 * s08's loop three ways on the same prompts: compaction off (the history only grows; the scripted
 * model has no window), client-side compaction, and the server's (the scripted model emulating the
 * API's context management), both with a window of WINDOW tokens. The session reads files, runs
 * commands and takes notes; along the way it plants facts three ways: as a note the user types, on
 * the first line of a command's output, and buried in the middle of one. At the end it asks for
 * each fact.
 *
 * Figures: the tokens the requests carried, summed over the session (estimated the scripted
 * model's way, about four characters a token), without compaction against with (a ratio); the
 * tokens the model read (usage) in server mode against what was sent; the share of the planted
 * facts recalled at the end, each way; and the time one compaction takes (compactHistory on the
 * session's full history, through the in-process scripted model, so the model's work is in it).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ALL_TOOLS, toApiTool } from "@harness/s02-tool-dispatch";
import { sendStreamed } from "@harness/s03-streaming";
import { fanOut } from "@harness/s04-tracing";
import {
  agentLoop,
  type CompactionMode,
  type ContextEvent,
  ContextWindow,
  compactHistory,
  contextBudgetFor,
  contextLimits,
  withServerBetas,
} from "@harness/s08-compaction";
import { demoBrain, estimateInputTokens, ScriptedModel } from "@harness/scripted-model";
import { appendUserText, historyProblems, type LoopEvent } from "@harness/shared";
import { type Figure, type Section, summarize } from "../section.ts";

/** The window of the compacting runs, in tokens. */
const WINDOW = 8000;

/** Model calls the session is built to take. */
const TURNS = 200;

/** How the compaction scenario runs. */
export interface CompactionOptions {
  /** Timed compactions before the counted ones. */
  warmup: number;
  /** Timed compactions. */
  reps: number;
}

interface Fact {
  subject: string;
  value: string;
  how: "note" | "first line" | "buried";
}

/** The session's prompts (about TURNS model calls), and the facts planted in them. */
function session(): { prompts: string[]; facts: Fact[] } {
  const prompts: string[] = [];
  const facts: Fact[] = [];
  const hows: Fact["how"][] = ["note", "first line", "buried"];
  let turns = 0;
  for (let i = 0; turns < TURNS; i++) {
    if (i % 4 === 0) {
      const fact: Fact = {
        subject: `fact ${facts.length + 1} key`,
        value: `V-${1000 + facts.length * 37}`,
        how: hows[facts.length % 3],
      };
      facts.push(fact);
      const line = `the ${fact.subject} is ${fact.value}`;
      if (fact.how === "note") {
        prompts.push(`Note: ${line}.`);
        turns += 1;
      } else {
        const command = fact.how === "first line" ? `echo ${line}; seq 1 40` : `seq 1 20; echo ${line}; seq 21 40`;
        prompts.push(`Run \`${command}\``);
        turns += 2;
      }
    } else {
      prompts.push(`Read part-${(i % 9) + 1}.txt and summarise it`);
      turns += 2;
    }
  }
  return { prompts, facts };
}

interface Run {
  sent: number;
  read: number;
  turns: number;
  recalled: number;
  /** Facts recalled, by how they were planted. */
  byHow: Record<Fact["how"], number>;
  compactions: number;
  cleared: number;
  history: MessageParam[];
  problems: string[];
}

/** Run the session one way, then ask for every fact. */
async function run(mode: CompactionMode, cwd: string, prompts: string[], facts: Fact[]): Promise<Run> {
  const model = new ScriptedModel({ brain: demoBrain, contextWindow: mode === "off" ? undefined : WINDOW });
  const client = model.client({ maxRetries: 0 });
  const messages: MessageParam[] = [];
  const problems: string[] = [];
  let turns = 0;
  let read = 0;
  let compactions = 0;
  let cleared = 0;
  // what the session did, heard as main.ts's listeners hear it
  const emit = (event: { type: string }) => {
    const heard = event as LoopEvent | ContextEvent;
    if (heard.type === "turn") read += heard.turn.usage.inputTokens;
    if (heard.type !== "context") return;
    const { change } = heard;
    if (change.kind === "compacted" || change.kind === "server_compacted") compactions++;
    if (change.kind === "cleared") cleared += change.results;
  };
  // as s08's main.ts builds it: the window around the streamed turn, no permission gate (bypassPermissions)
  const window = new ContextWindow({
    send: sendStreamed(mode === "server" ? withServerBetas(client) : client),
    model: "claude-bench",
    mode,
    contextWindow: mode === "off" ? undefined : WINDOW,
    tools: ALL_TOOLS.map(toApiTool),
    emit,
  });
  const listen = fanOut(emit, window.observe);
  const ask = async (prompt: string) => {
    appendUserText(messages, prompt);
    const result = await agentLoop(window.send, messages, { model: "claude-bench", cwd, emit: listen, window });
    if (result.stopReason !== "final_answer") problems.push(`${mode}: "${prompt}" ended with ${result.stopReason}`);
    if (historyProblems(messages).length > 0) problems.push(`${mode}: the history is invalid after "${prompt}"`);
    return result;
  };
  for (const prompt of prompts) turns += (await ask(prompt)).turns;
  const sessionRequests = model.requests.length;
  const sent = model.requests.reduce((sum, r) => sum + estimateInputTokens(r.body), 0);
  let recalled = 0;
  const byHow = { note: 0, "first line": 0, buried: 0 };
  for (const fact of facts) {
    const answer = await ask(`What is the ${fact.subject} you noted?`);
    if (answer.finalText !== `The ${fact.subject} is ${fact.value}.`) continue;
    recalled++;
    byHow[fact.how]++;
  }
  if (model.requests.length === sessionRequests) problems.push(`${mode}: no recall question reached the model`);
  return { sent, read, turns, recalled, byHow, compactions, cleared, history: messages, problems };
}

/** Run the compaction scenario. */
export async function compactionBenefit(o: CompactionOptions): Promise<Section> {
  const cwd = mkdtempSync(join(tmpdir(), "bench-compaction-"));
  const figures: Figure[] = [];
  const notes: string[] = [];
  const problems: string[] = [];
  try {
    for (let n = 1; n <= 9; n++) {
      writeFileSync(join(cwd, `part-${n}.txt`), `${Array.from({ length: 151 }, (_, i) => n * 1000 + i).join("\n")}\n`);
    }
    const { prompts, facts } = session();
    const off = await run("off", cwd, prompts, facts);
    const client = await run("client", cwd, prompts, facts);
    const server = await run("server", cwd, prompts, facts);
    problems.push(...off.problems, ...client.problems, ...server.problems);
    const one = (value: number) => summarize([value]);
    const k = (n: number) => `${(n / 1000).toFixed(0)}k`;
    figures.push({
      label: "tokens sent: off / client-side compaction",
      spread: one(off.sent / client.sent),
      unit: "x",
      detail: `${k(off.sent)} against ${k(client.sent)} tokens over ${client.turns} turns (off: ${off.turns})`,
    });
    figures.push({
      label: "tokens the model read: server compaction / sent",
      spread: one(server.read / server.sent),
      unit: "x",
      detail: `${k(server.read)} read of ${k(server.sent)} sent: the client still sends the whole history`,
    });
    const share = (r: Run) => (100 * r.recalled) / facts.length;
    for (const [label, r] of [
      ["facts recalled, compaction off", off],
      ["facts recalled, client-side", client],
      ["facts recalled, server-side", server],
    ] as const) {
      figures.push({ label, spread: one(share(r)), unit: "%", detail: `${r.recalled} of ${facts.length}` });
    }
    // which facts survive, by where they were planted
    for (const how of ["note", "first line", "buried"] as const) {
      const planted = facts.filter((f) => f.how === how).length;
      notes.push(
        `Planted as ${how === "note" ? "a note" : how === "first line" ? "a command's first output line" : "a line buried mid-output"}: ` +
          `${planted} facts; recalled client-side ${client.byHow[how]}, server-side ${server.byHow[how]}, without compaction ${off.byHow[how]}.`,
      );
    }
    notes.push(
      `Turns (model calls) in the session: off ${off.turns}, client-side ${client.turns}, server-side ${server.turns}.`,
    );
    notes.push(
      `Client-side: ${client.compactions} summaries and ${client.cleared} results cleared; server-side: ${server.compactions} compactions by the server.`,
    );

    // one compaction, timed: the uncompacted session's history, summarised with a quarter of the window kept
    const limits = contextLimits(contextBudgetFor("claude-bench", WINDOW));
    const times: number[] = [];
    for (let i = 0; i < o.warmup + o.reps; i++) {
      const history = structuredClone(off.history);
      const model = new ScriptedModel({ brain: demoBrain });
      const started = performance.now();
      const outcome = await compactHistory(sendStreamed(model.client()), history, {
        model: "claude-bench",
        tools: ALL_TOOLS.map(toApiTool),
        maxTokens: 4096,
        tailTokens: limits.tail,
        signal: new AbortController().signal,
      });
      if (outcome.kind !== "compacted") problems.push(`a timed compaction did not compact: ${JSON.stringify(outcome)}`);
      if (i >= o.warmup) times.push(performance.now() - started);
    }
    figures.push({
      label: "one compaction (summary call included)",
      spread: summarize(times),
      unit: "ms",
      detail: `a history of ${k(estimateInputTokens({ messages: off.history }))} tokens, in-process scripted model`,
    });
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  return {
    title: "compaction",
    about:
      `s08's loop on one scripted session of about ${TURNS} turns (reads, commands, notes; facts planted as notes, on a ` +
      `command's first output line, and buried mid-output), run with compaction off (no window), client-side and ` +
      `server-side (window ${WINDOW} tokens). Tokens are the scripted model's estimates. The session is deterministic, ` +
      `so its token figures have no spread; the compaction time is over ${o.reps} runs.`,
    figures,
    notes,
    problems,
  };
}
