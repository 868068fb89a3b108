/**
 * What a hook's exit means, in Claude Code's protocol. Exit 0: carry on, and stdout may hold a
 * JSON object of decisions (or, for UserPromptSubmit and SessionStart, plain text for the model).
 * Exit 2: block, with stderr as the reason; stdout is ignored. Any other exit, a timeout, a hook
 * that could not start or printed JSON that does not parse: an error the user is told about, and
 * nothing is blocked.
 */
import { z } from "zod";
import type { HookEventName } from "./hook-input.ts";
import type { HookRun } from "./run-hook.ts";

/** The JSON a hook may print on exit 0, in Claude Code's field names. */
export interface HookOutput {
  /** false: the loop stops after this event; `stopReason` is shown to the user. */
  continue?: boolean;
  stopReason?: string;
  /** Accepted for compatibility; the course never shows a hook's stdout, so there is nothing to hide. */
  suppressOutput?: boolean;
  /** A line shown to the user. */
  systemMessage?: string;
  /** "block" blocks like exit 2, with `reason`; "approve" is Claude Code's older PreToolUse allow. */
  decision?: "block" | "approve";
  reason?: string;
  hookSpecificOutput?: {
    hookEventName?: string;
    /** PreToolUse: decide the call. */
    permissionDecision?: "allow" | "deny" | "ask";
    permissionDecisionReason?: string;
    /** Text for the model. */
    additionalContext?: string;
  };
}

const hookOutputSchema: z.ZodType<HookOutput> = z.object({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  decision: z.enum(["block", "approve"]).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .object({
      hookEventName: z.string().optional(),
      permissionDecision: z.enum(["allow", "deny", "ask"]).optional(),
      permissionDecisionReason: z.string().optional(),
      additionalContext: z.string().optional(),
    })
    .optional(),
});

/** What one hook's run means. */
export type HookOutcome =
  /** Exit 0: `output` when it printed a JSON object, else `text` (its stdout, trimmed). */
  | { kind: "ok"; output?: HookOutput; text: string; notices: string[] }
  /** Exit 2: blocked, with its stderr as the reason. */
  | { kind: "block"; reason: string }
  /** Anything else: the reason is for the user; nothing is blocked. */
  | { kind: "error"; message: string };

/** Read one run. Contract: never throws; a hook's bad output is an `error` outcome. */
export function readHookRun(run: HookRun, event: HookEventName): HookOutcome {
  const name = `${event} hook ${JSON.stringify(run.hook.command)}`;
  if (run.startError !== undefined) return { kind: "error", message: `${name} could not start: ${run.startError}` };
  if (run.stopped === "timeout") {
    return {
      kind: "error",
      message: `${name} timed out after ${run.hook.timeoutMs / 1000} s; its process group was killed`,
    };
  }
  if (run.stopped === "interrupted") return { kind: "error", message: `${name} was interrupted` };
  if (run.exitCode === 2) {
    const reason = run.stderr.trim();
    return { kind: "block", reason: reason === "" ? `${name} blocked this (exit 2) without saying why` : reason };
  }
  if (run.exitCode !== 0) {
    const how = run.exitCode === null ? `was killed by ${run.signal ?? "a signal"}` : `failed (exit ${run.exitCode})`;
    const said = firstLines(run.stderr);
    return { kind: "error", message: `${name} ${how}${said ? `: ${said}` : ""}` };
  }
  const text = run.stdout.trim();
  if (!text.startsWith("{")) return { kind: "ok", text, notices: [] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const cut = run.stdoutCutBytes > 0 ? ` (${run.stdoutCutBytes} bytes of it were cut)` : "";
    return { kind: "error", message: `${name} printed JSON that does not parse${cut}: ${(error as Error).message}` };
  }
  const parsed = hookOutputSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "output"}: ${issue.message}`);
    return { kind: "error", message: `${name} printed JSON this harness cannot act on: ${issues.join("; ")}` };
  }
  return { kind: "ok", output: parsed.data, text: "", notices: ignoredFields(json, name) };
}

/** Claude Code fields a hook may rely on that this course does not act on: said, never silently dropped. */
function ignoredFields(json: unknown, name: string): string[] {
  const specific = (json as { hookSpecificOutput?: Record<string, unknown> }).hookSpecificOutput ?? {};
  return ["updatedInput", "updatedMCPToolOutput"]
    .filter((field) => field in specific)
    .map((field) => `${name}: hookSpecificOutput.${field} is not supported here; the call was not changed`);
}

/** The first lines of a hook's stderr, for a one-line notice. */
function firstLines(text: string): string {
  const lines = text.trim().split("\n").slice(0, 3).join(" / ");
  return lines.length > 300 ? `${lines.slice(0, 300)}...` : lines;
}
