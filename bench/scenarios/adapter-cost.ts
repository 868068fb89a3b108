/**
 * What an adapter costs (s09): for each wire format, the same conversation through a bare loop
 * of that format's SDK (its stream read by hand, its own message shapes) and through s09's
 * adapter (the course's history translated every turn, the stream read into the course's turn),
 * against the scripted model over HTTP on 127.0.0.1 from its own process, which speaks all three
 * formats from the same replies. Runs are interleaved (each repetition runs all six loops once, in
 * an order rotated each time) after warm-up runs that are not counted; a format's ratio in a
 * repetition is its adapter loop's time per turn over its bare loop's.
 *
 * Both loops of a format use the same client options (no endpoint guard on either: the adapter's
 * own work is measured) and the same read tool.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { ContentBlock, MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import {
  anthropicAdapter,
  openAiChatAdapter,
  openAiResponsesAdapter,
  type ProviderAdapter,
  type WireFormat,
} from "@harness/s09-providers";
import { AgentTurn, appendAssistantTurn, toolOutput, toResultBlock } from "@harness/shared";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { readTurnsAnswer, readTurnsPrompt, writeReadTurnsFiles } from "../bench-brain.ts";
import type { LoopOutcome } from "../contenders.ts";
import { equalWorkNote, equalWorkProblems } from "../equal-work.ts";
import { type Figure, formatDelta, formatValue, type Section, summarize } from "../section.ts";
import { startBenchServer } from "../start-bench-server.ts";

/** How the adapter comparison runs. */
export interface AdapterCostOptions {
  /** read_file turns in the conversation (model calls are one more). */
  turns: number;
  warmup: number;
  reps: number;
}

/** One loop of the comparison. */
interface Loop {
  name: string;
  format: WireFormat;
  kind: "bare" | "adapter";
  run(prompt: string): Promise<LoopOutcome>;
}

const MODEL = "scripted-model";
const MAX_TOKENS = 1024;
const SYSTEM = "You are a coding agent. Use the read_file tool. Be brief.";
const READ_FILE = {
  name: "read_file",
  description: "Read a small text file.",
  input_schema: { type: "object" as const, properties: { path: { type: "string" } }, required: ["path"] },
};
const FORMATS: readonly WireFormat[] = ["anthropic", "openai-chat", "openai-responses"];

/** Run the comparison. */
export async function adapterCost(o: AdapterCostOptions): Promise<Section> {
  const cwd = mkdtempSync(join(tmpdir(), "bench-adapters-"));
  writeReadTurnsFiles(cwd, o.turns);
  const server = await startBenchServer();
  try {
    const read = (input: unknown) => readFileSync(join(cwd, String((input as { path?: unknown }).path)), "utf8");
    const loops = FORMATS.flatMap((format) => [
      bareLoop(format, server.url, read),
      adapterLoop(format, server.url, read),
    ]);
    const prompt = readTurnsPrompt(o.turns);
    const perTurn: number[][] = loops.map(() => []);
    const cpuPerTurn: number[][] = loops.map(() => []);
    const outcomes = new Map<string, LoopOutcome[]>(loops.map((l) => [l.name, []]));
    const problems: string[] = [];

    for (let rep = -o.warmup; rep < o.reps; rep++) {
      const shift = ((rep % loops.length) + loops.length) % loops.length;
      for (const i of loops.map((_, k) => (k + shift) % loops.length)) {
        const loop = loops[i];
        const started = performance.now();
        const cpu = process.cpuUsage();
        const outcome = await loop.run(prompt).catch((error: unknown) => {
          problems.push(`${loop.name} failed: ${error instanceof Error ? error.message : String(error)}`);
          return { finalText: "", toolCalls: Number.NaN, turns: Number.NaN };
        });
        const ms = performance.now() - started;
        const cpuUsed = process.cpuUsage(cpu);
        const served = await server.take();
        if (Number.isNaN(outcome.turns)) {
          if (rep >= 0) {
            perTurn[i].push(Number.NaN);
            cpuPerTurn[i].push(Number.NaN);
          }
          continue;
        }
        outcomes.get(loop.name)?.push(outcome);
        if (served.requests !== outcome.turns) {
          problems.push(`${loop.name} reported ${outcome.turns} model calls; the server answered ${served.requests}`);
        }
        if (rep >= 0) {
          perTurn[i].push(ms / outcome.turns);
          cpuPerTurn[i].push((cpuUsed.user + cpuUsed.system) / 1000 / outcome.turns);
        }
      }
    }
    const expected: LoopOutcome = { finalText: readTurnsAnswer(o.turns), toolCalls: o.turns, turns: o.turns + 1 };
    problems.push(...equalWorkProblems(outcomes, expected));

    const median = (values: number[]) => summarize(values).median;
    const figures: Figure[] = FORMATS.map((format) => {
      const bare = loops.findIndex((l) => l.format === format && l.kind === "bare");
      const adapter = loops.findIndex((l) => l.format === format && l.kind === "adapter");
      const ms = (i: number) => median(perTurn[i]);
      const cpu = (i: number) => median(cpuPerTurn[i]);
      return {
        label: `${format}: adapter loop / bare SDK loop, per turn`,
        spread: summarize(perTurn[adapter].map((value, rep) => value / perTurn[bare][rep])),
        unit: "x" as const,
        detail:
          `${formatValue(ms(adapter), "ms")}/turn against ${formatValue(ms(bare), "ms")} ` +
          `(${formatDelta(ms(adapter) - ms(bare), "ms")}); CPU ${formatValue(cpu(adapter), "ms")}/turn against ` +
          `${formatValue(cpu(bare), "ms")} (${formatDelta(cpu(adapter) - cpu(bare), "ms")})`,
      };
    });
    const anthropicBare = loops.findIndex((l) => l.format === "anthropic" && l.kind === "bare");
    for (const format of FORMATS.slice(1)) {
      const bare = loops.findIndex((l) => l.format === format && l.kind === "bare");
      figures.push({
        label: `${format}'s bare loop / anthropic's bare loop (the wire formats themselves)`,
        spread: summarize(perTurn[bare].map((value, rep) => value / perTurn[anthropicBare][rep])),
        unit: "x",
      });
    }
    return {
      title: "Adapter cost per turn (s09)",
      about:
        `${o.turns} turns of a line of text and one read_file call, then an answer: ${o.turns + 1} model calls per run, ` +
        "streamed, from the scripted model over HTTP on 127.0.0.1 in its own process, speaking each format from the same replies. " +
        `${o.warmup} warm-up repetitions, then ${o.reps} counted; each runs all six loops once, interleaved, in an order rotated ` +
        "each time. Ratio = the adapter loop's time per turn / its format's bare SDK loop's in the same repetition.",
      figures,
      notes: [
        ...(problems.length === 0 ? [equalWorkNote(loops.length, o.warmup + o.reps, expected)] : []),
        "A bare loop keeps its format's own history and reads its stream by hand; the adapter loop keeps the course's " +
          "history (Messages API shape), translates it into the format on every turn, and reads the stream into the " +
          "course's turn (AgentTurn). The difference per turn is what the seam costs; with a real model a turn takes " +
          "seconds, so the absolute figure in the detail is the one to carry over.",
        "No target is stated in the issue: the figures are measured, not held to a limit.",
      ],
      problems,
    };
  } finally {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** The format's SDK used directly: its request, its stream, its history. */
function bareLoop(format: WireFormat, url: string, read: (input: unknown) => string): Loop {
  const name = `${format}: bare SDK loop`;
  if (format === "anthropic") {
    const client = new Anthropic({ apiKey: "bench", baseURL: url });
    return {
      name,
      format,
      kind: "bare",
      async run(prompt) {
        const messages: MessageParam[] = [{ role: "user", content: prompt }];
        let toolCalls = 0;
        for (let turns = 1; ; turns++) {
          const stream = await client.messages.create({
            model: MODEL,
            max_tokens: MAX_TOKENS,
            system: SYSTEM,
            tools: [READ_FILE],
            messages,
            stream: true,
          });
          const blocks: (ContentBlock & { json?: string })[] = [];
          for await (const event of stream) {
            if (event.type === "content_block_start") blocks[event.index] = { ...event.content_block, json: "" };
            else if (event.type === "content_block_delta") {
              const block = blocks[event.index];
              if (event.delta.type === "text_delta" && block.type === "text") block.text += event.delta.text;
              else if (event.delta.type === "input_json_delta") block.json += event.delta.partial_json;
            } else if (event.type === "content_block_stop") {
              const block = blocks[event.index];
              if (block.type === "tool_use") block.input = JSON.parse(block.json || "{}");
              delete block.json;
            }
          }
          messages.push({ role: "assistant", content: blocks });
          const calls = blocks.filter((b) => b.type === "tool_use");
          if (calls.length === 0) {
            return {
              finalText: blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n"),
              toolCalls,
              turns,
            };
          }
          const results: ToolResultBlockParam[] = calls.map((call) => {
            toolCalls++;
            return { type: "tool_result", tool_use_id: call.id, content: read(call.input) };
          });
          messages.push({ role: "user", content: results });
        }
      },
    };
  }
  const client = new OpenAI({ apiKey: "bench", baseURL: `${url}/v1` });
  const parameters = READ_FILE.input_schema;
  if (format === "openai-chat") {
    return {
      name,
      format,
      kind: "bare",
      async run(prompt) {
        const messages: ChatCompletionMessageParam[] = [
          { role: "system", content: SYSTEM },
          { role: "user", content: prompt },
        ];
        let toolCalls = 0;
        for (let turns = 1; ; turns++) {
          const stream = await client.chat.completions.create({
            model: MODEL,
            messages,
            tools: [
              { type: "function", function: { name: READ_FILE.name, description: READ_FILE.description, parameters } },
            ],
            max_completion_tokens: MAX_TOKENS,
            stream: true,
            stream_options: { include_usage: true },
          });
          let content = "";
          const calls: { id: string; name: string; arguments: string }[] = [];
          for await (const chunk of stream) {
            const delta = chunk.choices[0]?.delta;
            if (!delta) continue;
            if (delta.content) content += delta.content;
            for (const fragment of delta.tool_calls ?? []) {
              calls[fragment.index] ??= { id: "", name: "", arguments: "" };
              const call = calls[fragment.index];
              if (fragment.id) call.id = fragment.id;
              if (fragment.function?.name) call.name = fragment.function.name;
              call.arguments += fragment.function?.arguments ?? "";
            }
          }
          messages.push({
            role: "assistant",
            content: content || null,
            ...(calls.length > 0
              ? {
                  tool_calls: calls.map((c) => ({
                    id: c.id,
                    type: "function" as const,
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }
              : {}),
          });
          if (calls.length === 0) return { finalText: content, toolCalls, turns };
          for (const call of calls) {
            toolCalls++;
            messages.push({ role: "tool", tool_call_id: call.id, content: read(JSON.parse(call.arguments || "{}")) });
          }
        }
      },
    };
  }
  return {
    name,
    format,
    kind: "bare",
    async run(prompt) {
      const input: ResponseInputItem[] = [{ role: "user", content: prompt }];
      let toolCalls = 0;
      for (let turns = 1; ; turns++) {
        const stream = await client.responses.create({
          model: MODEL,
          instructions: SYSTEM,
          input,
          tools: [
            { type: "function", name: READ_FILE.name, description: READ_FILE.description, parameters, strict: false },
          ],
          max_output_tokens: MAX_TOKENS,
          store: false,
          stream: true,
        });
        let text = "";
        const items: ResponseInputItem[] = [];
        const calls: { call_id: string; arguments: string }[] = [];
        for await (const event of stream) {
          if (event.type === "response.output_text.delta") text += event.delta;
          else if (event.type === "response.output_item.done") {
            items.push(event.item as ResponseInputItem);
            if (event.item.type === "function_call") calls.push(event.item);
          }
        }
        input.push(...items);
        if (calls.length === 0) return { finalText: text, toolCalls, turns };
        for (const call of calls) {
          toolCalls++;
          input.push({
            type: "function_call_output",
            call_id: call.call_id,
            output: read(JSON.parse(call.arguments || "{}")),
          });
        }
      }
    },
  };
}

/** s09's adapter for the format: the course's history, translated each turn, read into the course's turn. */
function adapterLoop(format: WireFormat, url: string, read: (input: unknown) => string): Loop {
  const adapter: ProviderAdapter =
    format === "anthropic"
      ? anthropicAdapter(new Anthropic({ apiKey: "bench", baseURL: url }))
      : format === "openai-chat"
        ? openAiChatAdapter(new OpenAI({ apiKey: "bench", baseURL: `${url}/v1` }))
        : openAiResponsesAdapter(new OpenAI({ apiKey: "bench", baseURL: `${url}/v1` }));
  const signal = new AbortController().signal;
  return {
    name: `${format}: s09 adapter loop`,
    format,
    kind: "adapter",
    async run(prompt) {
      const messages: MessageParam[] = [{ role: "user", content: prompt }];
      let toolCalls = 0;
      for (let turns = 1; ; turns++) {
        const request = { model: MODEL, max_tokens: MAX_TOKENS, system: SYSTEM, tools: [READ_FILE], messages };
        const message = await adapter.streamTurn(request, signal);
        if (!message) throw new Error("the turn was aborted");
        const turn = AgentTurn.fromResponse(message);
        appendAssistantTurn(messages, turn);
        if (turn.toolCalls.length === 0) return { finalText: turn.text, toolCalls, turns };
        messages.push({
          role: "user",
          content: turn.toolCalls.map((call) => {
            toolCalls++;
            return toResultBlock(call, toolOutput(read(call.input)));
          }),
        });
      }
    },
  };
}
