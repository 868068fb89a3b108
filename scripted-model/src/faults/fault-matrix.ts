/**
 * The fault matrix: every way a model call can go wrong, written once as scripts for the scripted
 * model, with what a loop must do about each, and a runner that plays one case against any
 * chapter's loop and reports what happened as plain data.
 *
 * A streaming loop (s03 on) and a non-streaming one (s01, s02) meet the same fault differently: an SSE
 * error or a cut after content is an error for the first, but for the second it is an HTTP 500 or
 * a dropped connection that the SDK sends again. Each case says what both must do. Whatever the
 * outcome, a tool call from partial or malformed input never runs (its command would create the
 * sentinel file), and the history stays one the API would accept, after an error too.
 *
 * Left out: hanging requests and Ctrl-C (the chapters' own tests drive those with a signal).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { appendUserText, historyProblems } from "@harness/shared";
import { reply, type ScriptedReply, type ScriptStep, text, textReply, toolUse } from "../script.ts";
import { ScriptedModel } from "../scripted-model.ts";
import { type SseEvent, streamEvents } from "../wire.ts";

/** The file a sentinel tool call creates; it must never exist after a run. */
export const SENTINEL_FILE = "PWNED";

/** The bash command of the sentinel tool call, always sent in partial or malformed input. */
export const SENTINEL_COMMAND = `touch ${SENTINEL_FILE}`;

/** The SDK retries the matrix's clients allow (the SDK's default): a case that needs more fails. */
export const FAULT_MATRIX_MAX_RETRIES = 2;

/** How a loop ended: with a stop reason, or by throwing (the error's `name` and HTTP status). */
export type FaultEnd = { kind: "stopped"; stopReason: string } | { kind: "threw"; errorName: string; status?: number };

/** What one kind of loop must do with a case. */
export interface FaultExpectation {
  /** How the loop ends. */
  end: FaultEnd;
  /** Requests the model receives, the SDK's and the loop's retries included. */
  requests: number;
  /** Files the case's tool calls create in the working directory, sorted (none when absent). */
  createdFiles?: string[];
}

/** Loops that consume a streamed response (s03 on), and loops that make one plain request (s01, s02). */
export type LoopKind = "streaming" | "nonStreaming";

/** One row of the matrix. */
export interface FaultCase {
  /** What goes wrong, as a test name reads it. */
  name: string;
  /** The steps the scripted model answers with, the recovery reply last where a loop can recover. */
  script: readonly ScriptStep[];
  /** What a streaming loop and a non-streaming loop must do. */
  expected: Record<LoopKind, FaultExpectation>;
}

/** The text of every recovery reply: the loop got past the fault. */
export const RECOVERED = "Recovered after the fault.";

const recovery = textReply(RECOVERED);
const stopped = (stopReason: string, requests: number, createdFiles?: string[]): FaultExpectation => ({
  end: { kind: "stopped", stopReason },
  requests,
  ...(createdFiles ? { createdFiles } : {}),
});
const threw = (errorName: string, requests: number, status?: number): FaultExpectation => ({
  end: { kind: "threw", errorName, ...(status === undefined ? {} : { status }) },
  requests,
});
const same = (expectation: FaultExpectation): Record<LoopKind, FaultExpectation> => ({
  streaming: expectation,
  nonStreaming: expectation,
});

/** The sentinel call's input, with a list nested 10,000 levels deep beside its command. */
const DEEP_INPUT = `{"command": "${SENTINEL_COMMAND}", "x": ${"[".repeat(10_000)}${"]".repeat(10_000)}}`;

// the replies faults interrupt: a text long enough for several deltas, then the sentinel call
const speech = reply([text("I will look at the files first, then create the file you asked for.")]);
const sentinelCall = reply([
  text("Creating it."),
  toolUse("bash", { command: SENTINEL_COMMAND, description: "create the file the user asked for" }),
]);

/**
 * How many events of `scripted`'s stream come before the fault: up to and including the `nth`
 * event that `matches`. Counted from the wire format, so the cut lands where the name says even
 * if the wire splits text differently one day.
 */
function eventsThrough(scripted: ScriptedReply, matches: (event: SseEvent) => boolean, nth = 1): number {
  const events = streamEvents(scripted, { messageId: "m", model: "m", toolUseId: (i) => `t${i}`, inputTokens: 0 });
  let seen = 0;
  const index = events.findIndex((event) => matches(event) && ++seen === nth);
  if (index < 0) throw new Error(`the scripted reply has fewer than ${nth} matching events`);
  return index + 1;
}
const delta = (type: string) => (event: SseEvent) =>
  event.event === "content_block_delta" && (event.data.delta as { type?: string }).type === type;
const firstTextDelta = eventsThrough(speech, delta("text_delta"));
// the first input delta is empty; by the third the command is whole but the object is not closed
const midToolInput = eventsThrough(sentinelCall, delta("input_json_delta"), 3);

/**
 * The matrix. Contract: no case's sentinel call may run in any loop; a case whose loop can
 * recover ends its script with a reply saying `RECOVERED`.
 */
export const FAULT_CASES: readonly FaultCase[] = [
  {
    name: "no fault: a plain answer",
    script: [recovery],
    expected: same(stopped("final_answer", 1)),
  },
  {
    name: "a 429 with retry-after, then an answer",
    script: [{ kind: "http_error", status: 429, retryAfterMs: 1 }, recovery],
    expected: same(stopped("final_answer", 2)),
  },
  {
    name: "a 529 with retry-after, then an answer",
    script: [{ kind: "http_error", status: 529, retryAfterMs: 1 }, recovery],
    expected: same(stopped("final_answer", 2)),
  },
  {
    name: "a 529 until the SDK's retries run out",
    script: [
      ...Array.from({ length: FAULT_MATRIX_MAX_RETRIES + 1 }, () => ({
        kind: "http_error" as const,
        status: 529,
        retryAfterMs: 1,
      })),
      recovery, // never reached: a loop that retried more than the SDK would end with it
    ],
    expected: same(threw("OverloadedError", FAULT_MATRIX_MAX_RETRIES + 1, 529)),
  },
  {
    name: "a 500, then an answer",
    script: [{ kind: "http_error", status: 500, retryAfterMs: 1 }, recovery],
    expected: same(stopped("final_answer", 2)),
  },
  {
    name: "a 401, never retried",
    script: [{ kind: "http_error", status: 401 }, recovery],
    expected: same(threw("AuthenticationError", 1, 401)),
  },
  {
    name: "an SSE error before any content, then an answer",
    script: [{ kind: "sse_error", afterEvents: 1, reply: speech }, recovery],
    // a stream is sent again when nothing of it was used; plainly, it is an HTTP 500 the SDK retries
    expected: same(stopped("final_answer", 2)),
  },
  {
    name: "an SSE error before any content, every time",
    script: [...Array.from({ length: 3 }, () => ({ kind: "sse_error" as const, afterEvents: 1 })), recovery],
    // streamed: the first send and the loop's two retries; plainly: an HTTP 500, and the SDK's two
    expected: {
      streaming: threw("APIError", 3),
      nonStreaming: threw("InternalServerError", FAULT_MATRIX_MAX_RETRIES + 1, 500),
    },
  },
  {
    name: "an SSE error after the first text delta",
    script: [{ kind: "sse_error", afterEvents: firstTextDelta, reply: speech }, recovery],
    expected: { streaming: threw("StreamError", 1), nonStreaming: stopped("final_answer", 2) },
  },
  {
    name: "an SSE error in the middle of a tool call's input",
    script: [{ kind: "sse_error", afterEvents: midToolInput, reply: sentinelCall }, recovery],
    expected: { streaming: threw("StreamError", 1), nonStreaming: stopped("final_answer", 2) },
  },
  {
    name: "a stream cut before any content, then an answer",
    script: [{ kind: "cut", afterEvents: 1, reply: speech }, recovery],
    expected: same(stopped("final_answer", 2)),
  },
  {
    name: "a stream cut before any content, every time",
    script: [...Array.from({ length: 3 }, () => ({ kind: "cut" as const, afterEvents: 1 })), recovery],
    expected: {
      streaming: threw("StreamError", 3),
      nonStreaming: threw("APIConnectionError", FAULT_MATRIX_MAX_RETRIES + 1),
    },
  },
  {
    name: "a stream cut mid-text",
    script: [{ kind: "cut", afterEvents: firstTextDelta, reply: speech }, recovery],
    expected: { streaming: threw("StreamError", 1), nonStreaming: stopped("final_answer", 2) },
  },
  {
    name: "a stream cut mid-tool-input",
    script: [{ kind: "cut", afterEvents: midToolInput, reply: sentinelCall }, recovery],
    expected: { streaming: threw("StreamError", 1), nonStreaming: stopped("final_answer", 2) },
  },
  {
    name: "a stream that ends without message_stop after a complete tool call",
    // streamed, the message never completed, so its call never runs; plainly, it is a whole reply
    script: [{ kind: "no_message_stop", reply: reply([toolUse("bash", { command: "touch RAN" })]) }, recovery],
    expected: { streaming: threw("StreamError", 1), nonStreaming: stopped("final_answer", 2, ["RAN"]) },
  },
  {
    name: "malformed tool JSON",
    script: [reply([{ type: "tool_use", name: "bash", rawInput: `{"command": "${SENTINEL_COMMAND}",,}` }]), recovery],
    expected: same(stopped("final_answer", 2)),
  },
  {
    name: "tool JSON that stops short of its closing brace",
    script: [reply([{ type: "tool_use", name: "bash", rawInput: `{"command": "${SENTINEL_COMMAND}"` }]), recovery],
    expected: same(stopped("final_answer", 2)),
  },
  {
    name: "tool input nested 10,000 levels deep",
    // JSON.parse reads it, but the next request's body (JSON.stringify) would overflow the stack:
    // refused where it arrives (MAX_INPUT_DEPTH), the call is an invalid-arguments result
    script: [reply([{ type: "tool_use", name: "bash", rawInput: DEEP_INPUT }]), recovery],
    expected: same(stopped("final_answer", 2)),
  },
  {
    name: "a tool call cut by max_tokens",
    script: [
      reply([text("Creating"), { type: "tool_use", name: "bash", rawInput: `{"command": "${SENTINEL_COMMAND}` }], {
        stopReason: "max_tokens",
      }),
      recovery,
    ],
    expected: same(stopped("max_tokens", 1)),
  },
  {
    name: "a tool_use block without an id",
    script: [
      reply([{ type: "other", block: { type: "tool_use", name: "bash", input: { command: SENTINEL_COMMAND } } }]),
      recovery,
    ],
    expected: same(stopped("final_answer", 1)),
  },
  {
    name: "an unknown stop reason without a tool call",
    script: [
      textReply("An answer, stopped for a reason no one has seen yet.", { stopReason: "novel_reason" }),
      recovery,
    ],
    expected: same(stopped("final_answer", 1)),
  },
  {
    name: "an unknown stop reason with a tool call, which runs",
    script: [reply([toolUse("bash", { command: "touch RAN" })], { stopReason: "novel_reason" }), recovery],
    expected: same(stopped("final_answer", 2, ["RAN"])),
  },
  {
    name: "a text block of whitespace only before a tool call",
    // the API rejects a history that keeps the blank block, so the next request would fail
    script: [reply([text("\n\n"), toolUse("bash", { command: "touch RAN" })]), recovery],
    expected: same(stopped("final_answer", 2, ["RAN"])),
  },
  {
    name: "a thinking-only turn",
    script: [
      reply([{ type: "thinking", thinking: "The user wants an answer; I have one.", signature: "sig-1" }]),
      recovery,
    ],
    expected: same(stopped("final_answer", 1)),
  },
  {
    name: "an empty content array",
    script: [reply([]), recovery],
    expected: same(stopped("final_answer", 1)),
  },
];

/**
 * A chapter's loop as the runner calls it: run on `messages` in `cwd` with this client (by
 * default an Anthropic client; see `RunFaultCaseOptions.connect` for another).
 */
export type FaultMatrixLoop<C = Anthropic> = (
  client: C,
  messages: MessageParam[],
  cwd: string,
) => Promise<{ stopReason: string; turns: number }>;

/** What happened when a loop met one case, as plain data to assert on. */
export interface FaultOutcome {
  /** How the loop ended. */
  end: FaultEnd;
  /** Requests the model received for the run, retries included. */
  requests: number;
  /** The loop result's turns (`null` when it threw). */
  turns: number | null;
  /** The message of the error the loop threw (`null` when it stopped). */
  errorMessage: string | null;
  /** Files that appeared in the working directory during the run, sorted. */
  createdFiles: string[];
  /** True when the sentinel file exists: a tool ran from partial or malformed input. */
  sentinelRan: boolean;
  /** `historyProblems` of the history after the run; empty when the API would accept it. */
  historyProblems: string[];
  /**
   * When the loop threw: true when the history is exactly what the failed request sent (nothing
   * of the failed call was kept). `null` when the loop stopped.
   */
  historyAsBeforeFailedCall: boolean | null;
  /** The history after the run (a copy, taken before the next prompt). */
  history: MessageParam[];
  /**
   * A next prompt on the same history, answered by a fresh scripted model (which rejects an
   * invalid history as the API does): `null` when it was answered, else what went wrong.
   */
  nextPromptProblem: string | null;
}

/** How to run a case. */
export interface RunFaultCaseOptions<C = Anthropic> {
  /**
   * The client the loop gets, in front of the case's scripted model, allowed `maxRetries` retries
   * (default: the model's own Anthropic client): a loop that speaks another wire format.
   */
  connect?: (model: ScriptedModel, maxRetries: number) => C;
  /** Where the tools run (default: a fresh temp directory, removed afterwards). */
  cwd?: string;
  /** Steps answered before the case's script (earlier turns of the run; each one request). */
  before?: readonly ScriptStep[];
  /** The prompt the history starts with. */
  prompt?: string;
}

/**
 * A history as any wire format reads it back into the Messages API's shape: every content a list
 * of blocks (a user's text may be a string in the history), no `is_error: false` (the default,
 * which another format has no field for), and no `cache_control` (a marker s10 puts on the
 * request it sends, never on the history).
 */
function asReadBack(messages: readonly MessageParam[]): unknown[] {
  return messages.map((m) => ({
    role: m.role,
    content: (typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content).map((block) => {
      const { cache_control: _, ...unmarked } = block as typeof block & { cache_control?: unknown };
      if (unmarked.type !== "tool_result" || unmarked.is_error !== false) return unmarked;
      const { is_error: __, ...rest } = unmarked;
      return rest;
    }),
  }));
}

/**
 * Play `fault` against `loop` and report what happened; then send a next prompt on the same
 * history, as a REPL would.
 * Contract: never throws for anything the loop does; a throw is reported as `end.kind: "threw"`.
 */
export async function runFaultCase<C = Anthropic>(
  fault: FaultCase,
  loop: FaultMatrixLoop<C>,
  options: RunFaultCaseOptions<C> = {},
): Promise<FaultOutcome> {
  const connect = options.connect ?? ((model, maxRetries) => model.client({ maxRetries }) as C);
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), "fault-matrix-"));
  try {
    const filesBefore = new Set(visibleFiles(cwd));
    const model = new ScriptedModel({ script: [...(options.before ?? []), ...fault.script] });
    const messages: MessageParam[] = [{ role: "user", content: options.prompt ?? "Please do the task." }];
    let end: FaultEnd;
    let turns: number | null = null;
    let errorMessage: string | null = null;
    try {
      const result = await loop(connect(model, FAULT_MATRIX_MAX_RETRIES), messages, cwd);
      end = { kind: "stopped", stopReason: result.stopReason };
      turns = result.turns;
    } catch (error) {
      end = thrownEnd(error);
      errorMessage = error instanceof Error ? error.message : String(error);
    }
    const lastSent = model.requests.at(-1)?.body.messages;
    const outcome: FaultOutcome = {
      end,
      requests: model.requests.length,
      turns,
      errorMessage,
      createdFiles: visibleFiles(cwd).filter((name) => !filesBefore.has(name)),
      sentinelRan: existsSync(join(cwd, SENTINEL_FILE)),
      historyProblems: historyProblems(messages),
      historyAsBeforeFailedCall:
        end.kind === "threw"
          ? lastSent !== undefined && JSON.stringify(asReadBack(lastSent)) === JSON.stringify(asReadBack(messages))
          : null,
      history: structuredClone(messages),
      nextPromptProblem: null,
    };
    outcome.nextPromptProblem = await nextPromptProblem(loop, messages, cwd, connect);
    return outcome;
  } finally {
    if (!options.cwd) rmSync(cwd, { recursive: true, force: true });
  }
}

/** Send one more prompt on `messages`; `null` when it is answered and the history stays valid. */
async function nextPromptProblem<C>(
  loop: FaultMatrixLoop<C>,
  messages: MessageParam[],
  cwd: string,
  connect: (model: ScriptedModel, maxRetries: number) => C,
): Promise<string | null> {
  const model = new ScriptedModel({ script: [textReply("Still here.")] });
  appendUserText(messages, "Are you still there?");
  try {
    const result = await loop(connect(model, 0), messages, cwd);
    if (result.stopReason !== "final_answer") return `the next prompt ended with ${result.stopReason}`;
  } catch (error) {
    const { errorName, status } = thrownEnd(error) as { errorName: string; status?: number };
    return `the next prompt threw ${errorName}${status ? ` ${status}` : ""}: ${error instanceof Error ? error.message : String(error)}`;
  }
  const problems = historyProblems(messages);
  return problems.length > 0 ? `after the next prompt: ${problems.join("; ")}` : null;
}

function thrownEnd(error: unknown): FaultEnd {
  // the openai SDK leaves its errors' `name` as "Error": their class names them
  const errorName =
    error instanceof Error ? (error.name === "Error" ? error.constructor.name : error.name) : typeof error;
  const status = (error as { status?: unknown } | null)?.status;
  return { kind: "threw", errorName, ...(typeof status === "number" ? { status } : {}) };
}

/** Names in `dir`, hidden ones (a trace directory) left out. */
function visibleFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !name.startsWith("."))
    .sort();
}

/**
 * What an outcome got wrong against the case's expectation for this kind of loop: one line per
 * broken rule, empty when the loop met the fault as the matrix says.
 */
export function faultCaseMismatches(fault: FaultCase, kind: LoopKind, outcome: FaultOutcome): string[] {
  const expected = fault.expected[kind];
  const problems: string[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(outcome.end, expected.end))
    problems.push(`ended ${JSON.stringify(outcome.end)}, expected ${JSON.stringify(expected.end)}`);
  if (outcome.requests !== expected.requests)
    problems.push(`made ${outcome.requests} requests, expected ${expected.requests}`);
  if (!same(outcome.createdFiles, expected.createdFiles ?? []))
    problems.push(`created ${JSON.stringify(outcome.createdFiles)}`);
  if (outcome.sentinelRan) problems.push("ran a tool call from partial or malformed input");
  for (const problem of outcome.historyProblems) problems.push(`history: ${problem}`);
  if (outcome.end.kind === "threw" && outcome.historyAsBeforeFailedCall !== true) {
    problems.push("kept part of the failed call in the history");
  }
  if (outcome.nextPromptProblem !== null) problems.push(`next prompt: ${outcome.nextPromptProblem}`);
  return problems;
}
