/**
 * The loops compared: a bare loop of SDK calls (the floor), the same bare loop streamed, the
 * course's s01 and s02 loops (whole responses) and its s03 loop (streamed), the tool runner of @anthropic-ai/sdk, and the Vercel AI SDK's
 * generateText. Each is given the same model, system prompt, output budget and one tool, bash,
 * whose every implementation calls `runBash` from @harness/shared, so a tool call costs the same
 * in each. Each reports what it did (final text, tool calls, model calls) so the caller can check
 * that the work was equal.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import type { ContentBlock, MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { agentLoop as s01Loop } from "@harness/s01-agent-loop";
import { bashTool, agentLoop as s02Loop, toolMap } from "@harness/s02-tool-dispatch";
import { agentLoop as s03Loop, sendStreamed } from "@harness/s03-streaming";
import { bashToolDefinition, runBash } from "@harness/shared";
import { generateText, stepCountIs, tool } from "ai";
import { z } from "zod";

/** What one run of a loop did. */
export interface LoopOutcome {
  finalText: string;
  toolCalls: number;
  /** Model calls. */
  turns: number;
}

/** Settings every loop gets alike. */
export interface RunSettings {
  /** The scripted server's base URL. */
  url: string;
  /** Where bash runs. */
  cwd: string;
  /** Model calls allowed; above what the conversation needs, so no loop is cut short. */
  maxTurns: number;
  /** Told each streamed text delta, by the loops that stream. */
  onText?: (delta: string) => void;
}

/** One loop, ready to run a prompt (its client is built once, as an application would). */
export interface Contender {
  name: string;
  /** floor: the reference; ours: held to the targets; peer: what ours must not be worse than. */
  role: "floor" | "reference" | "ours" | "peer";
  run(prompt: string): Promise<LoopOutcome>;
}

const MODEL = "scripted-model";
const MAX_TOKENS = 1024;
const SYSTEM = "You are a coding agent. Use the bash tool. Be brief.";

function sdkClient(url: string): Anthropic {
  return new Anthropic({ apiKey: "bench", baseURL: url });
}

function textOf(content: readonly ContentBlock[]): string {
  return content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
}

/** The floor: `messages.create`, run each tool_use, send the results back; nothing else. */
export function floorLoop(s: RunSettings): Contender {
  const client = sdkClient(s.url);
  return {
    name: "floor: bare SDK calls",
    role: "floor",
    async run(prompt) {
      const messages: MessageParam[] = [{ role: "user", content: prompt }];
      let toolCalls = 0;
      for (let turns = 1; ; turns++) {
        const message = await client.messages.create({
          model: MODEL,
          max_tokens: MAX_TOKENS,
          system: SYSTEM,
          tools: [bashToolDefinition],
          messages,
        });
        messages.push({ role: "assistant", content: message.content });
        const calls = message.content.filter((b) => b.type === "tool_use");
        if (calls.length === 0 || turns >= s.maxTurns) return { finalText: textOf(message.content), toolCalls, turns };
        const results: ToolResultBlockParam[] = [];
        for (const call of calls) {
          const output = await runBash(String((call.input as { command?: unknown }).command), { cwd: s.cwd });
          toolCalls++;
          results.push({
            type: "tool_result",
            tool_use_id: call.id,
            content: output.content,
            is_error: output.isError,
          });
        }
        messages.push({ role: "user", content: results });
      }
    },
  };
}

/** The floor, streamed: the raw events of `messages.create({stream: true})`, rebuilt by hand. */
export function streamedFloorLoop(s: RunSettings): Contender {
  const client = sdkClient(s.url);
  return {
    name: "floor, streamed: bare SDK stream",
    role: "reference",
    async run(prompt) {
      const messages: MessageParam[] = [{ role: "user", content: prompt }];
      let toolCalls = 0;
      for (let turns = 1; ; turns++) {
        const stream = await client.messages.create({
          model: MODEL,
          max_tokens: MAX_TOKENS,
          system: SYSTEM,
          tools: [bashToolDefinition],
          messages,
          stream: true,
        });
        const blocks: (ContentBlock & { json?: string })[] = [];
        for await (const event of stream) {
          if (event.type === "content_block_start") blocks[event.index] = { ...event.content_block, json: "" };
          else if (event.type === "content_block_delta") {
            const block = blocks[event.index];
            if (event.delta.type === "text_delta" && block.type === "text") {
              block.text += event.delta.text;
              s.onText?.(event.delta.text);
            } else if (event.delta.type === "input_json_delta") block.json += event.delta.partial_json;
          } else if (event.type === "content_block_stop") {
            const block = blocks[event.index];
            if (block.type === "tool_use") block.input = JSON.parse(block.json || "{}");
            delete block.json;
          }
        }
        messages.push({ role: "assistant", content: blocks });
        const calls = blocks.filter((b) => b.type === "tool_use");
        if (calls.length === 0 || turns >= s.maxTurns) return { finalText: textOf(blocks), toolCalls, turns };
        const results: ToolResultBlockParam[] = [];
        for (const call of calls) {
          const output = await runBash(String((call.input as { command?: unknown }).command), { cwd: s.cwd });
          toolCalls++;
          results.push({
            type: "tool_result",
            tool_use_id: call.id,
            content: output.content,
            is_error: output.isError,
          });
        }
        messages.push({ role: "user", content: results });
      }
    },
  };
}

/** s01: the course's non-streaming loop, with its bash tool. */
export function s01Contender(s: RunSettings): Contender {
  const client = sdkClient(s.url);
  return {
    name: "s01 loop",
    role: "ours",
    async run(prompt) {
      const result = await s01Loop(client, [{ role: "user", content: prompt }], {
        model: MODEL,
        cwd: s.cwd,
        maxTurns: s.maxTurns,
        maxTokens: MAX_TOKENS,
        system: SYSTEM,
      });
      return { finalText: result.finalText, toolCalls: result.toolCalls, turns: result.turns };
    },
  };
}

/** s02: the course's loop with its dispatch map, offered only its bash tool; whole responses. */
export function s02Contender(s: RunSettings): Contender {
  const client = sdkClient(s.url);
  const tools = toolMap([bashTool]);
  return {
    name: "s02 loop",
    role: "ours",
    async run(prompt) {
      const result = await s02Loop(client, [{ role: "user", content: prompt }], {
        model: MODEL,
        cwd: s.cwd,
        tools,
        maxTurns: s.maxTurns,
        maxTokens: MAX_TOKENS,
        system: SYSTEM,
      });
      return { finalText: result.finalText, toolCalls: result.toolCalls, turns: result.turns };
    },
  };
}

/** s03: the course's streaming loop (s02's dispatch map, offered only its bash tool). */
export function s03Contender(s: RunSettings): Contender {
  const send = sendStreamed(sdkClient(s.url));
  const tools = toolMap([bashTool]);
  const onText = s.onText;
  return {
    name: "s03 loop (streams)",
    role: "ours",
    async run(prompt) {
      const result = await s03Loop(send, [{ role: "user", content: prompt }], {
        model: MODEL,
        cwd: s.cwd,
        tools,
        maxTurns: s.maxTurns,
        maxTokens: MAX_TOKENS,
        system: SYSTEM,
        emit: onText ? (event) => event.type === "text" && onText(event.text) : undefined,
      });
      return { finalText: result.finalText, toolCalls: result.toolCalls, turns: result.turns };
    },
  };
}

/**
 * The SDK's tool runner, not streaming (its default). `thread: false` sends the whole history each
 * turn, as every other loop here does: the scripted model holds no server-side thread.
 */
export function toolRunnerContender(s: RunSettings): Contender {
  const client = sdkClient(s.url);
  let toolCalls = 0;
  const bash = betaTool({
    name: "bash",
    description: bashToolDefinition.description ?? "Run a shell command.",
    inputSchema: {
      type: "object",
      properties: { command: { type: "string", description: "The command to run, e.g. `ls -la`." } },
      required: ["command"],
    },
    run: async ({ command }) => {
      const output = await runBash(command, { cwd: s.cwd });
      toolCalls++;
      if (output.isError) throw new ToolError(output.content);
      return output.content;
    },
  });
  return {
    name: "peer: SDK tool runner",
    role: "peer",
    async run(prompt) {
      toolCalls = 0;
      const runner = client.beta.messages.toolRunner({
        model: MODEL,
        max_tokens: MAX_TOKENS,
        system: SYSTEM,
        tools: [bash],
        messages: [{ role: "user", content: prompt }],
        max_iterations: s.maxTurns,
        thread: false,
      });
      let turns = 0;
      let finalText = "";
      for await (const message of runner) {
        turns++;
        finalText = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
      }
      return { finalText, toolCalls, turns };
    },
  };
}

/** The Vercel AI SDK: generateText with one tool, going round until the model stops calling it. */
export function aiSdkContender(s: RunSettings): Contender {
  const model = createAnthropic({ baseURL: `${s.url}/v1`, apiKey: "bench" })(MODEL);
  const bash = tool({
    description: bashToolDefinition.description ?? "Run a shell command.",
    inputSchema: z.object({ command: z.string().describe("The command to run, e.g. `ls -la`.") }),
    execute: async ({ command }) => (await runBash(command, { cwd: s.cwd })).content,
  });
  return {
    name: "peer: AI SDK generateText",
    role: "peer",
    async run(prompt) {
      const result = await generateText({
        model,
        system: SYSTEM,
        prompt,
        tools: { bash },
        stopWhen: stepCountIs(s.maxTurns),
        maxOutputTokens: MAX_TOKENS,
      });
      const toolCalls = result.steps.reduce((n, step) => n + step.toolCalls.length, 0);
      return { finalText: result.text, toolCalls, turns: result.steps.length };
    },
  };
}

/** Every contender of the loop comparison, the floor first. */
export function allContenders(s: RunSettings): Contender[] {
  return [
    floorLoop,
    streamedFloorLoop,
    s01Contender,
    s02Contender,
    s03Contender,
    toolRunnerContender,
    aiSdkContender,
  ].map((make) => make(s));
}
