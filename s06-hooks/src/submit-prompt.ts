/**
 * UserPromptSubmit: the user's hooks read a prompt before it is sent. One that blocks (exit 2,
 * `"decision": "block"`, or `"continue": false`) takes the prompt back out of the history, unsent,
 * and the user is told why in one line. Otherwise the text the hooks print for the model (and
 * any text given, such as SessionStart's) is added to the prompt's message, after the prompt.
 */
import type { MessageParam, TextBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { oneLine } from "./continue-after-stop.ts";
import { type HookSession, userPromptInput } from "./runner/hook-input.ts";
import type { HookCommand } from "./runner/load-hooks.ts";
import { type RunHooksOptions, runHooks } from "./runner/run-hooks.ts";

/** How a prompt is submitted. */
export interface SubmitPromptOptions extends RunHooksOptions {
  session: HookSession;
  /** More text for the model to read with this prompt (main.ts: what SessionStart hooks printed). */
  context?: readonly string[];
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
  const extra = [...(options.context ?? []), ...verdict.context].filter((text) => text.trim() !== "");
  if (extra.length > 0) {
    const blocks: TextBlockParam[] = extra.map((text) => ({ type: "text", text }));
    last.content = [
      ...(typeof last.content === "string" ? [{ type: "text" as const, text: last.content }] : last.content),
      ...blocks,
    ];
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
