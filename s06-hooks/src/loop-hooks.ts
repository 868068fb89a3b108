/**
 * The hooks at the two points of a run that are not a tool call, as one seam the loop calls:
 * UserPromptSubmit before the prompt is sent (`submit-prompt.ts`), and Stop when an answer is about
 * to stand (`continue-after-stop.ts`). The calls in between are hook-gate.ts's.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { continueAfterStop } from "./continue-after-stop.ts";
import { type HookSession, stopInput } from "./runner/hook-input.ts";
import type { HookCommand } from "./runner/load-hooks.ts";
import { runHooks } from "./runner/run-hooks.ts";
import { type SubmittedPrompt, submitPrompt } from "./submit-prompt.ts";

/** A line for the user from a mechanism around the loop (here, a hook), told with the loop's events. */
export type NoticeEvent = { type: "notice"; from: string; text: string };

/** What the loop calls at the two points that are not a tool call. */
export interface LoopHooks {
  /**
   * UserPromptSubmit, before the prompt that ends `messages` is first sent. A block takes the
   * prompt back out of `messages`; otherwise the hooks' context is added after it.
   * Contract: never rejects.
   */
  submitPrompt(messages: MessageParam[], signal: AbortSignal): Promise<SubmittedPrompt>;
  /**
   * Stop, when the model's answer is about to stand: the message that sends the loop on (at most
   * once per prompt), or `undefined` to let the answer stand.
   * Contract: never rejects; nothing after an abort.
   */
  stop(signal: AbortSignal): Promise<string | undefined>;
}

/** What the two points need. */
export interface LoopHooksOptions {
  hooks: readonly HookCommand[];
  session: HookSession;
  /** Whether the project's hooks may run (`decideTrust`); the local ones always may. */
  runProjectHooks: boolean;
  /** Text for the model to read with the next prompt sent (what SessionStart printed); sent once. */
  context?: readonly string[];
  /** Told each line for the user: a failure, a systemMessage, a blocked prompt, a Stop hook's block. */
  notice(line: string): void;
}

/** The hooks of a session at its two points; a Stop hook may send each prompt's run on once. */
export function loopHooks(options: LoopHooksOptions): LoopHooks {
  const { hooks, session, runProjectHooks, notice } = options;
  let context = [...(options.context ?? [])];
  let stopHookActive = false; // a Stop hook sent this prompt's run on: it may not do so again
  return {
    async submitPrompt(messages, signal) {
      stopHookActive = false;
      const submitted = await submitPrompt(messages, hooks, {
        cwd: session.cwd,
        signal,
        runProjectHooks,
        session,
        context,
      });
      submitted.notices.forEach(notice);
      if (submitted.kind === "sent") context = []; // read by the model with this prompt
      return submitted;
    },
    async stop(signal) {
      if (hooks.length === 0 || signal.aborted) return undefined;
      const verdict = await runHooks(hooks, stopInput(session, stopHookActive), {
        cwd: session.cwd,
        signal,
        runProjectHooks,
      });
      verdict.notices.forEach(notice);
      const next = continueAfterStop(verdict, stopHookActive);
      if (next.notice) notice(next.notice);
      if (next.kind !== "continue" || signal.aborted) return undefined;
      stopHookActive = true;
      return next.message;
    },
  };
}
