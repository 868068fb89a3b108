/**
 * Three rules of the demo brain for long conversations: summarise the conversation when asked (a
 * harness compacting its history asks this), take a note ("Note: the X is Y."), and answer "What is
 * the X you noted?" from whatever the conversation it is sent still holds: a note, a command's output, or a
 * summary. They read only the request, so a fact the history lost cannot be recalled.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { DemoRule } from "../brain/read-conversation.ts";
import { textReply } from "../script.ts";
import { summariseConversation } from "./summarise-conversation.ts";

/** A request to summarise the conversation so far, as a harness's summary prompt begins. */
export const SUMMARY_REQUEST = /^summari[sz]e (?:this|the) conversation\b/i;

const summariseTheConversation: DemoRule = {
  example: "Summarise this conversation",
  needs: [],
  unlisted: true,
  matches: (prompt) => SUMMARY_REQUEST.test(prompt.trim()),
  next({ prompt, messages }) {
    const summary = summariseConversation(withoutLastPrompt(messages));
    const instructions = /additional instructions[^:\n]*:\s*([\s\S]+)$/i.exec(prompt)?.[1]?.trim();
    // a rule-based model cannot follow free instructions: it says so, and keeps its sections
    const note = instructions
      ? `\n\n(Asked to ${JSON.stringify(instructions)}: the scripted model keeps the same sections.)`
      : "";
    return textReply(`${summary}${note}`);
  },
};

const takeNote: DemoRule = {
  example: "Note: the release codename is BLUE-HERON.",
  needs: [],
  unlisted: true,
  matches: (prompt) => NOTE.test(prompt.trim()),
  next: ({ prompt }) => textReply(`Noted: ${NOTE.exec(prompt.trim())?.[1] ?? ""}`),
};
const NOTE = /^note:\s*([\s\S]+)$/i;

const recallFact: DemoRule = {
  example: "What is the release codename you noted?",
  needs: [],
  unlisted: true,
  matches: (prompt) => QUESTION.test(prompt.trim()),
  next({ prompt, messages }) {
    const subject = QUESTION.exec(prompt.trim())?.[1] ?? "";
    const value = findFact(subject, withoutLastPrompt(messages));
    if (value === undefined) {
      return textReply(`I do not know the ${subject}: nothing in the conversation I was sent says what it is.`);
    }
    return textReply(`The ${subject} is ${value}.`);
  },
};
const QUESTION = /^what (?:is|was) the ([a-z][\w -]*?) you noted\s*\??$/i;

/** The rules, appended to the demo brain's. */
export const CONTEXT_RULES: DemoRule[] = [summariseTheConversation, takeNote, recallFact];

/** The latest value stated for "the <subject> is <value>" anywhere in the messages, if any. */
export function findFact(subject: string, messages: readonly MessageParam[]): string | undefined {
  const escaped = subject.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, "\\s+");
  const pattern = new RegExp(`\\bthe ${escaped} is ([^\\s."'\`,;]+(?:[ -][A-Z0-9][\\w-]*)*)`, "gi");
  let found: string | undefined;
  for (const text of textsOf(messages)) for (const match of text.matchAll(pattern)) found = match[1];
  return found;
}

/** Every text the messages hold, in order: text blocks, tool results, compaction summaries. */
function textsOf(messages: readonly MessageParam[]): string[] {
  const texts: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === "object" && value !== null) {
      const block = value as Record<string, unknown>;
      if (block.type === "text") visit(block.text);
      else if (block.type === "tool_result" || block.type === "compaction") visit(block.content);
    }
  };
  for (const message of messages) visit(message.content);
  return texts;
}

/** The messages without the prompt being answered (the last text of the last user message). */
function withoutLastPrompt(messages: readonly MessageParam[]): MessageParam[] {
  const last = messages.at(-1);
  if (last?.role !== "user") return [...messages];
  const blocks = typeof last.content === "string" ? [] : last.content;
  const at = blocks.findLastIndex((b) => b.type === "text");
  const rest = at === -1 ? blocks : blocks.filter((_, i) => i !== at);
  return rest.length === 0 ? messages.slice(0, -1) : [...messages.slice(0, -1), { role: "user", content: rest }];
}
