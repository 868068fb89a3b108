/**
 * What a hook's exit means, in Claude Code's protocol. Exit 0: carry on, and stdout may hold a
 * JSON object of decisions (or, for UserPromptSubmit and SessionStart, plain text for the model).
 * Exit 2: block, with stderr as the reason; stdout is ignored. Any other exit, a timeout, a hook
 * that could not start or printed JSON that does not parse: an error the user is told about, and
 * nothing is blocked.
 *
 * The JSON is read only when it is all of stdout, as Claude Code reads it: a log line printed
 * before it makes the whole output plain text, and a decision in it is not read. Claude Code drops
 * such output without a word (its debug log says "treating as plain text"); here the user is told,
 * in one line, that nothing was read, or, where text goes to the model, that it went as text.
 */
import { loadZod, type Zod } from "@harness/s02-tool-dispatch";
import type { z } from "zod";
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
    /** PreToolUse: the call's input as it should run instead (the whole input, in Claude Code's field names). */
    updatedInput?: Record<string, unknown>;
  };
}

/** The shape of a hook's JSON output, built the first time a hook prints JSON (s02's `loadZod`). */
function hookOutputSchemaWith(z: Zod): z.ZodType<HookOutput> {
  return z.object({
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
        updatedInput: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
  });
}
let hookOutputSchema: z.ZodType<HookOutput> | undefined;

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
  if (!text.startsWith("{")) return { kind: "ok", text, notices: plainTextNotice(text, event, name) };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const cut = run.stdoutCutBytes > 0 ? ` (${run.stdoutCutBytes} bytes of it were cut)` : "";
    return { kind: "error", message: `${name} printed JSON that does not parse${cut}: ${(error as Error).message}` };
  }
  hookOutputSchema ??= hookOutputSchemaWith(loadZod());
  const parsed = hookOutputSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "output"}: ${issue.message}`);
    return { kind: "error", message: `${name} printed JSON this harness cannot act on: ${issues.join("; ")}` };
  }
  return { kind: "ok", output: parsed.data, text: "", notices: ignoredFields(json, event, name) };
}

/**
 * The line that says plain stdout was not read as JSON: at the events that ignore text, any text;
 * where text is context for the model, only text that looks as if it meant JSON (a line opening `{`).
 */
function plainTextNotice(text: string, event: HookEventName, name: string): string[] {
  if (text === "") return [];
  const start = JSON.stringify(text.split("\n")[0].slice(0, 60));
  if (event !== "UserPromptSubmit" && event !== "SessionStart") {
    return [
      `${name} printed something that is not one JSON value (it starts ${start}), so nothing it printed was read`,
    ];
  }
  if (!/^\s*\{/m.test(text)) return [];
  return [
    `${name} printed something that is not one JSON value (it starts ${start}), so it was read as text for the model, not as JSON`,
  ];
}

/** Claude Code fields a hook may rely on that this course does not act on here: said, never silently dropped. */
function ignoredFields(json: unknown, event: HookEventName, name: string): string[] {
  const specific = (json as { hookSpecificOutput?: Record<string, unknown> }).hookSpecificOutput ?? {};
  return [...(event === "PreToolUse" ? [] : ["updatedInput"]), "updatedMCPToolOutput"]
    .filter((field) => field in specific)
    .map((field) => `${name}: hookSpecificOutput.${field} is not supported at ${event}; nothing was changed`);
}

/** The first lines of a hook's stderr, for a one-line notice. */
function firstLines(text: string): string {
  const lines = text.trim().split("\n").slice(0, 3).join(" / ");
  return lines.length > 300 ? `${lines.slice(0, 300)}...` : lines;
}
