/**
 * The model's side of the long sessions these tests run, written out here rather than taken from
 * the demo brain. Each rule reads only the request it is sent, so what the model "knows" is what
 * the harness sent it: a note the history lost cannot be recalled.
 *
 * - asked to summarise (the summary prompt last): one line per note the request holds, nothing else;
 * - tool results last: a one-line answer;
 * - "Read F ...": a `read_file` call for F;
 * - "What is the X you noted?": the value the request gives for "the X is ...", or that it has none;
 * - anything else ("Note: the X is Y."): "Noted."
 */
import type { MessageCreateParams, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { reply, type ScriptStep, textReply, toolUse } from "@harness/scripted-model";
import { SUMMARY_PROMPT } from "../src/compaction/request-summary.ts";

/** The brain: hand it to `new ScriptedModel({ brain: sessionBrain })`. */
export function sessionBrain(request: MessageCreateParams): ScriptStep {
  const last = request.messages.at(-1);
  const blocks = typeof last?.content === "string" ? [{ type: "text", text: last.content }] : (last?.content ?? []);
  const prompt = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).at(-1);
  if (prompt?.startsWith(SUMMARY_PROMPT)) return textReply(notesIn(request.messages).join("\n") || "(no notes)");
  if (prompt === undefined) return textReply("Read it.");
  const read = /^Read (\S+)/.exec(prompt);
  if (read) return reply([toolUse("read_file", { path: read[1] })]);
  const question = /^What is the (.+) you noted\?$/.exec(prompt);
  if (question) {
    const earlier = JSON.stringify(request.messages).replace(JSON.stringify(prompt).slice(1, -1), "");
    const value = new RegExp(`the ${question[1]} is ([\\w-]+)`, "i").exec(earlier)?.[1];
    return textReply(value ? `The ${question[1]} is ${value}.` : `I was not sent the ${question[1]}.`);
  }
  return textReply("Noted.");
}

/** Every "Note: ..." the messages hold, once each, in order. */
export function notesIn(messages: readonly MessageParam[]): string[] {
  return [...new Set(JSON.stringify(messages).match(/Note: [^"\\]*/g) ?? [])];
}
