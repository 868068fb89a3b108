/**
 * What the prompt cache saves (s10). One scripted session of TURNS model calls (a read_file call
 * each, then an answer), run through s10's loop twice on the scripted model, which emulates the
 * Messages API's cache: once with the breakpoints (`cached`), once without (`--prompt-cache off`).
 * Each turn's usage says what its request paid full price for, read from the cache and wrote to
 * it; the cost is at the list prices of the course's default model (Claude Sonnet: $3 per million
 * input tokens; a read a tenth of that, a five-minute write 1.25 times).
 *
 * Figures: the input cost without the cache over the input cost with it (the goal: at least 5x),
 * and the input cost with the cache over the floor, where every token is written to the cache once,
 * by the request that first sends it, and read by every request after (the goal: within 10%). The
 * session is deterministic: one run each way; the figures are exact, not a spread.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { sendStreamed } from "@harness/s03-streaming";
import {
  agentLoop,
  CACHE_PRICE_FACTORS,
  CacheMeter,
  cached,
  costOf,
  listPricesFor,
  sumCounts,
  type TokenCounts,
} from "@harness/s10-prompt-caching";
import { reply, ScriptedModel, textReply, toolUse } from "@harness/scripted-model";
import { type Figure, type Section, summarize } from "../section.ts";

/** Model calls in the session. */
const TURNS = 50;
/** The model the session is priced at. */
const MODEL = "claude-sonnet-5-5";
const SYSTEM = "You are a coding agent working in a benchmark directory. Use the tools. Be brief.";

/** How the caching scenario runs. */
export interface PromptCachingOptions {
  turns?: number;
}

/** Run the session cached and uncached, and compare what its input cost. */
export async function promptCaching(o: PromptCachingOptions = {}): Promise<Section> {
  const turns = o.turns ?? TURNS;
  const cwd = mkdtempSync(join(tmpdir(), "bench-caching-"));
  try {
    for (let k = 1; k < turns; k++) {
      const lines = Array.from({ length: 30 }, (_, i) => `export const value${k}_${i} = ${k * 100 + i}; // line ${i}`);
      writeFileSync(join(cwd, `file-${k}.txt`), `${lines.join("\n")}\n`);
    }
    const cachedRun = await session(cwd, turns, true);
    const uncachedRun = await session(cwd, turns, false);
    const prices = listPricesFor(MODEL);
    if (!prices) throw new Error(`no list prices for ${MODEL}`);
    const inputCost = (counts: TokenCounts) => costOf({ ...counts, output: 0 }, prices, "5m").cached;
    const cached = sumCounts(cachedRun);
    const uncached = sumCounts(uncachedRun);
    const floor = floorCost(uncachedRun, prices.input);
    const saving = inputCost(uncached) / inputCost(cached);
    const overFloor = inputCost(cached) / floor;
    const problems: string[] = [];
    const sent = (counts: TokenCounts) => counts.input + counts.read + counts.written;
    // the cached run sends its system prompt as a marked block, a few tokens more a request: 1% is the tolerance
    if (
      Math.abs(sent(cached) - sent(uncached)) > sent(uncached) / 100 ||
      cachedRun.length !== turns ||
      uncachedRun.length !== turns
    ) {
      problems.push(
        `the two runs did unequal work: ${cachedRun.length} and ${uncachedRun.length} turns, ${sent(cached)} and ${sent(uncached)} input tokens`,
      );
    }
    const n = (value: number) => value.toLocaleString("en-US");
    const dollars = (value: number) => `$${value.toFixed(4)}`;
    const side = (name: string, c: TokenCounts) =>
      `${name}: ${n(c.input)} input tokens at full price, ${n(c.read)} read from the cache, ${n(c.written)} written ` +
      `to it; input ${dollars(inputCost(c))}, with the output ${dollars(costOf(c, prices, "5m").cached)}.`;
    const figures: Figure[] = [
      {
        label: `input cost, uncached ÷ cached (${turns} turns)`,
        spread: summarize([saving]),
        unit: "x",
        detail: `${dollars(inputCost(uncached))} ÷ ${dollars(inputCost(cached))}`,
        target: { text: "≥ 5x", limit: 5, met: saving >= 5 },
      },
      {
        label: "cached input cost ÷ the floor",
        spread: summarize([overFloor]),
        unit: "x",
        detail: `${dollars(inputCost(cached))} ÷ ${dollars(floor)}`,
        target: { text: "≤ 1.10x", limit: 1.1, met: overFloor <= 1.1 },
      },
    ];
    return {
      title: "Prompt caching (s10)",
      about:
        `One scripted session of ${turns} model calls (a read_file call each, then an answer) through s10's loop, ` +
        "with the cache breakpoints and without, on the scripted model's emulation of the Messages API's cache " +
        `(estimated tokens, four characters each), priced at ${prices.family} list prices ($${prices.input} per ` +
        `million input tokens; a read ${CACHE_PRICE_FACTORS.read}x, a 5-minute write ${CACHE_PRICE_FACTORS.write["5m"]}x). ` +
        "Deterministic: one run each way.",
      figures,
      notes: [
        side("Cached", cached),
        side("Uncached", uncached),
        `The floor (every token written once, by the request that first sends it, and read after): ${dollars(floor)}.`,
        `Input tokens sent: ${n(sent(cached))} cached, ${n(sent(uncached))} uncached (the marked system prompt is a block, a few tokens longer).`,
      ],
      problems,
    };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** Run the session once; each turn's counts. */
async function session(cwd: string, turns: number, withCache: boolean): Promise<TokenCounts[]> {
  const script = [
    ...Array.from({ length: turns - 1 }, (_, k) => reply([toolUse("read_file", { path: `file-${k + 1}.txt` })])),
    textReply(`I read ${turns - 1} files.`),
  ];
  const model = new ScriptedModel({ script });
  const meter = new CacheMeter();
  const streamed = sendStreamed(model.client({ maxRetries: 0 }), 1);
  const send = withCache ? cached(streamed, { ttl: "5m" }) : streamed;
  const messages: MessageParam[] = [{ role: "user", content: `Read the ${turns - 1} files, one at a time.` }];
  const result = await agentLoop(send, messages, {
    model: MODEL,
    cwd,
    system: SYSTEM,
    maxTurns: turns,
    emit: meter.observe,
  });
  if (result.stopReason !== "final_answer") throw new Error(`the session ended with ${result.stopReason}`);
  return meter.turns;
}

/**
 * The least the session's input could cost with a cache: each request writes what is new in it
 * (once, at the write price) and reads everything the request before it sent (at the read price).
 */
function floorCost(turns: readonly TokenCounts[], inputPrice: number): number {
  const perToken = inputPrice / 1_000_000;
  let before = 0;
  let cost = 0;
  for (const turn of turns) {
    const sent = turn.input + turn.read + turn.written;
    cost += before * perToken * CACHE_PRICE_FACTORS.read + (sent - before) * perToken * CACHE_PRICE_FACTORS.write["5m"];
    before = sent;
  }
  return cost;
}
