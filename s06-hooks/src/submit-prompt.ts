/**
 * UserPromptSubmit: the user's hooks read a prompt before it is sent. One that blocks (exit 2,
 * `"decision": "block"`, or `"continue": false`) takes the prompt back out of the history, unsent,
 * and the user is told why in one line. Otherwise the text the hooks print for the model (and
 * SessionStart's, with the first prompt) goes into the prompt's message as blocks of its own,
 * each labelled with its event (`[UserPromptSubmit hook]`), BEFORE the prompt: the message's last
 * words stay the user's, which is what a compaction keeps word for word (s08) and what a reader of
 * the history takes for the prompt. Claude Code sends the same text apart from the prompt too,
 * labelled as a hook's ("UserPromptSubmit hook additional context: ..."): as a system reminder, or
 * (2.1) a message of its own in a role the public Messages API does not take; a block of the
 * prompt's own message is the nearest the API takes.
 */
import type { MessageParam, TextBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { oneLine } from "./continue-after-stop.ts";
import { type HookSession, userPromptInput } from "./runner/hook-input.ts";
import type { HookCommand } from "./runner/load-hooks.ts";
import { type RunHooksOptions, runHooks } from "./runner/run-hooks.ts";

/** How a prompt is submitted. */
export interface SubmitPromptOptions extends RunHooksOptions {
  session: HookSession;
  /** What SessionStart hooks printed, for the model to read with this prompt. */
  context?: readonly string[];
}

/** What opens a block of a hook's text for the model, before the event's name. */
const HOOK_LABEL = /^\[(SessionStart|UserPromptSubmit) hook\]\n/;

/** A hook's text for the model, as the block that carries it: labelled with the event that printed it. */
export function hookContext(event: "SessionStart" | "UserPromptSubmit", text: string): TextBlockParam {
  return { type: "text", text: `[${event} hook]\n${text}` };
}

/** True when `text` is a hook's context (`hookContext`), not words the user typed. */
export function isHookContext(text: string): boolean {
  return HOOK_LABEL.test(text);
}

/** What became of the prompt; `notices` are lines for the user either way. */
export type SubmittedPrompt =
  /**
   * Let through: `prompt` is the prompt as sent, context included, as a message of its own (a
   * prompt joined to an unanswered user message is the blocks it added); absent with no prompt.
   */
  | { kind: "sent"; prompt?: MessageParam; notices: string[] }
  /** Taken back unsent: `reason` is the hooks', and the last notice says so. */
  | { kind: "blocked"; reason: string; notices: string[] };

/**
 * Run the UserPromptSubmit hooks on the prompt that ends `messages` (the last text of its last
 * message, which is the user's).
 * Contract: never rejects; when blocked, `messages` is left as it was before the prompt was
 * added (a message it made alone is removed, a text block added to an earlier one is taken off);
 * with no prompt to read, it is "sent" with no `prompt` and spawns nothing.
 */
export async function submitPrompt(
  messages: MessageParam[],
  hooks: readonly HookCommand[],
  options: SubmitPromptOptions,
): Promise<SubmittedPrompt> {
  const last = messages.at(-1);
  const prompt =
    last?.role !== "user" ? undefined : typeof last.content === "string" ? last.content : lastText(last.content);
  if (last === undefined || prompt === undefined) return { kind: "sent", notices: [] };
  const verdict = await runHooks(hooks, userPromptInput(options.session, prompt), options);
  const reason = verdict.stop ?? verdict.block;
  if (reason !== undefined) {
    if (typeof last.content === "string" || last.content.length === 1) messages.pop();
    else last.content = last.content.slice(0, -1);
    return { kind: "blocked", reason, notices: [...verdict.notices, `prompt blocked: ${oneLine(reason)}`] };
  }
  const at = typeof last.content === "string" ? 0 : last.content.length - 1; // where the prompt starts in it
  const said = (text: string) => text.trim() !== "";
  const blocks = [
    ...(options.context ?? []).filter(said).map((text) => hookContext("SessionStart", text)),
    ...verdict.context.filter(said).map((text) => hookContext("UserPromptSubmit", text)),
  ];
  if (blocks.length > 0) {
    // the hooks' blocks go before the prompt: its words stay the last of the message
    const content = typeof last.content === "string" ? [{ type: "text" as const, text: last.content }] : last.content;
    last.content = [...content.slice(0, at), ...blocks, ...content.slice(at)];
  }
  const sent = typeof last.content === "string" ? last.content : last.content.slice(at);
  return { kind: "sent", prompt: { role: "user", content: sent }, notices: verdict.notices };
}

/**
 * The prompt that ends `messages`, as a message of its own: what the user's last words added (a
 * whole message, or the text block a prompt appended to an unanswered one), as a loop run without
 * hooks sends it; undefined when the history does not end with a user's text.
 */
export function lastPrompt(messages: readonly MessageParam[]): MessageParam | undefined {
  const last = messages.at(-1);
  if (last?.role !== "user") return undefined;
  if (typeof last.content === "string") return { role: "user", content: last.content };
  const block = last.content.at(-1);
  return block?.type === "text" ? { role: "user", content: [block] } : undefined;
}

/** The text of a message's last block, when that block is text (a prompt appended to a message). */
function lastText(content: Exclude<MessageParam["content"], string>): string | undefined {
  const block = content.at(-1);
  return block?.type === "text" ? block.text : undefined;
}
