/**
 * What a demo rule reads off a request: the latest prompt, the tool calls made since it with the
 * results they got, and the tools offered. A rule keeps no state of its own: every decision is read
 * off the conversation it is sent, as a real model's is.
 */
import type { MessageCreateParams, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { ScriptedReply } from "../script.ts";

/** A tool call of the current prompt and the result it got. */
export interface Exchange {
  name: string;
  input: Record<string, unknown>;
  /** The result's text (`[exit code N]` footer included for bash). */
  output: string;
  isError: boolean;
}

/** What the brain reads off a request: the latest prompt and the tool exchanges since it. */
export interface Conversation {
  prompt: string;
  exchanges: Exchange[];
  /** Names of the tools the request offers. */
  tools: Set<string>;
  /** Each offered tool's description, by name (what a real model reads to choose, e.g. s13's list of skills). */
  descriptions: Map<string, string>;
  /** The whole conversation the request carries, for rules that read further back than the prompt. */
  messages: MessageParam[];
  /** The messages before the latest prompt. */
  earlier: MessageParam[];
}

/** One thing the brain knows how to do: a prompt it recognises and the replies it gives. */
export interface DemoRule {
  /** A prompt that triggers it, listed for prompts the brain does not know. */
  example: string;
  /** Tools it needs; it is offered only when the request has them all. */
  needs: string[];
  /** True for a prompt a harness sends rather than one a user types: not listed as an example. */
  unlisted?: boolean;
  /** True when this rule answers this prompt (the latest one in the conversation). */
  matches(prompt: string): boolean;
  /** The next reply, from the exchanges so far. */
  next(conversation: Conversation): ScriptedReply;
}

/** Read the latest text prompt and every tool call and result after it. */
export function readConversation(request: MessageCreateParams): Conversation {
  const messages = request.messages;
  const offered = (request.tools ?? []) as Array<{ name: string; description?: string }>;
  const tools = new Set(offered.map((t) => t.name));
  const descriptions = new Map(offered.map((t) => [t.name, t.description ?? ""]));
  let start = messages.length - 1;
  while (start > 0 && !isPrompt(messages[start])) start--;
  const prompt = promptText(messages[start]);
  const exchanges: Exchange[] = [];
  for (let i = start + 1; i < messages.length; i++) {
    const message = messages[i];
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    const next = messages[i + 1];
    const results = next && typeof next.content !== "string" ? next.content : [];
    for (const block of message.content) {
      if (block.type !== "tool_use") continue;
      const result = results.find((r) => r.type === "tool_result" && r.tool_use_id === block.id);
      const content = result && result.type === "tool_result" ? result.content : "";
      exchanges.push({
        name: block.name,
        input: (block.input ?? {}) as Record<string, unknown>,
        output:
          typeof content === "string" ? content : (content ?? []).map((c) => ("text" in c ? c.text : "")).join(""),
        isError: result?.type === "tool_result" && result.is_error === true,
      });
    }
  }
  return { prompt, exchanges, tools, descriptions, messages, earlier: messages.slice(0, start) };
}

function isPrompt(message: MessageParam): boolean {
  if (message.role !== "user") return false;
  if (typeof message.content === "string") return true;
  return message.content.some((b) => b.type === "text");
}

/** A prompt is the message's last text: earlier texts in it are older words (a summary, a prompt never answered). */
function promptText(message: MessageParam | undefined): string {
  if (!message) return "";
  if (typeof message.content === "string") return message.content;
  const texts = message.content.flatMap((b) => (b.type === "text" ? [b.text] : []));
  return texts.at(-1) ?? "";
}
