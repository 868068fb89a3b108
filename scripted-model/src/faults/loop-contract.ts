/**
 * The loop contract: what every chapter's loop must do with each row of COURSE.md's stop-reason
 * table, written once as data (a script for the scripted model, and what any loop must do with
 * it), and a runner that plays one case against a chapter's loop and reports what happened as
 * plain data. The fault matrix (fault-matrix.ts) says how a loop meets a model call that goes
 * wrong; this says how it reads a model call that went right.
 *
 * Every case checks, beside its own row: the result's JSON fields (exactly COURSE.md's six, the
 * usage summed over the turns), the history valid after the run and after one more prompt, each
 * turn's calls answered in tool_use order, and the loop's events (a `model_call` and a `turn` per
 * model call, a `tool_call` and a `tool_result` per call run and none for a call not run, one
 * `end` last, carrying the result the loop returned).
 *
 * Left out: errors, retries and broken streams (the fault matrix), Ctrl-C (each chapter's tests).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { type AgentLoopResult, appendUserText, DEFAULT_MAX_TURNS, historyProblems } from "@harness/shared";
import { reply, type ScriptedBlock, type ScriptedReply, text, textReply, toolUse } from "../script.ts";
import { ScriptedModel } from "../scripted-model.ts";

/** How a case's tool call was answered: it ran, or it was answered with an error without running. */
export type CallAnswer = "ran" | "not_run";

/** What any loop must do with a case. */
export interface LoopContractExpectation {
  /** The result, whole: every field, the usage summed over the turns. */
  result: AgentLoopResult<string>;
  /** Model calls made (the scripted model's requests). */
  requests: number;
  /** Files in the working directory after the run, sorted: each call that runs creates one. */
  createdFiles: string[];
  /** How each tool_use id of the script was answered in the history. */
  answers: Record<string, CallAnswer>;
  /**
   * The second request is the first's history as it was, plus this assistant message (the paused
   * turn, sent back for the model to continue); absent when the case does not pause.
   */
  resends?: MessageParam;
}

/** One rule of the contract. */
export interface LoopContractCase {
  /** The rule, as a test name reads it. */
  name: string;
  /** The row of COURSE.md's stop-reason table it checks (its first column). */
  row: string;
  /** The replies the scripted model gives, one per request; a reply after the last expected request must never be asked for. */
  script: readonly ScriptedReply[];
  expected: LoopContractExpectation;
}

/** The text of a reply that must never be requested: a loop that asks for it went on when it should have stopped. */
export const NEVER_REQUESTED = "This reply must never be requested.";

const never = textReply(NEVER_REQUESTED, { usage: { input_tokens: 999, output_tokens: 999 } });
/** The usage of the `n`th reply of a script: distinct per turn, so a sum that misses one shows. */
const usageOf = (n: number) => ({ input_tokens: 100 * n, output_tokens: n });
const summed = (turns: number) => ({
  inputTokens: (100 * turns * (turns + 1)) / 2,
  outputTokens: (turns * (turns + 1)) / 2,
});
/** A tool call that, run, creates the file named after its id. */
const creating = (id: string): ScriptedBlock => toolUse("bash", { command: `touch ${id}` }, id);
const result = (
  stopReason: string,
  turns: number,
  toolCalls: number,
  finalText: string,
  providerStopReason: string | null,
): AgentLoopResult<string> => ({ stopReason, turns, toolCalls, finalText, providerStopReason, usage: summed(turns) });

const serverToolUse = {
  type: "server_tool_use",
  id: "srvtoolu_1",
  name: "web_search",
  input: { query: "agent loops" },
};

/** The contract: COURSE.md's stop-reason table, row by row, and the turn budget. */
export const LOOP_CONTRACT: readonly LoopContractCase[] = [
  {
    name: "ends a turn without tool calls that stopped with end_turn as final_answer",
    row: "no tool_use, any other stop reason",
    script: [textReply("The answer.", { usage: usageOf(1) }), never],
    expected: {
      result: result("final_answer", 1, 0, "The answer.", "end_turn"),
      requests: 1,
      createdFiles: [],
      answers: {},
    },
  },
  {
    name: "ends a turn without tool calls that stopped with stop_sequence as final_answer",
    row: "no tool_use, any other stop reason",
    script: [textReply("Up to the sequence", { stopReason: "stop_sequence", usage: usageOf(1) }), never],
    expected: {
      result: result("final_answer", 1, 0, "Up to the sequence", "stop_sequence"),
      requests: 1,
      createdFiles: [],
      answers: {},
    },
  },
  {
    name: "ends a turn without tool calls and a stop reason no one knows as final_answer, keeping the raw value",
    row: "no tool_use, any other stop reason",
    script: [textReply("Something new.", { stopReason: "a_reason_from_2030", usage: usageOf(1) }), never],
    expected: {
      result: result("final_answer", 1, 0, "Something new.", "a_reason_from_2030"),
      requests: 1,
      createdFiles: [],
      answers: {},
    },
  },
  {
    name: "ends a turn without tool calls and a null stop reason as final_answer",
    row: "no tool_use, any other stop reason",
    script: [textReply("No reason given.", { stopReason: null, usage: usageOf(1) }), never],
    expected: {
      result: result("final_answer", 1, 0, "No reason given.", null),
      requests: 1,
      createdFiles: [],
      answers: {},
    },
  },
  {
    name: "runs the call of a tool_use turn, sends its result with its id, and goes on",
    row: "one or more tool_use blocks",
    script: [
      reply([text("Creating it."), creating("toolu_a")], { usage: usageOf(1) }),
      textReply("Created.", { usage: usageOf(2) }),
      never,
    ],
    expected: {
      result: result("final_answer", 2, 1, "Created.", "end_turn"),
      requests: 2,
      createdFiles: ["toolu_a"],
      answers: { toolu_a: "ran" },
    },
  },
  {
    name: "runs every call of a turn and answers them all in one user message, in tool_use order",
    row: "one or more tool_use blocks",
    script: [
      reply([creating("toolu_1"), creating("toolu_2"), creating("toolu_3")], { usage: usageOf(1) }),
      textReply("All three.", { usage: usageOf(2) }),
      never,
    ],
    expected: {
      result: result("final_answer", 2, 3, "All three.", "end_turn"),
      requests: 2,
      createdFiles: ["toolu_1", "toolu_2", "toolu_3"],
      answers: { toolu_1: "ran", toolu_2: "ran", toolu_3: "ran" },
    },
  },
  {
    name: "runs the calls of a turn whose stop reason no one knows, and goes on",
    row: "one or more tool_use blocks (any other stop reason)",
    script: [
      reply([creating("toolu_new")], { stopReason: "a_reason_from_2030", usage: usageOf(1) }),
      textReply("Done.", { usage: usageOf(2) }),
      never,
    ],
    expected: {
      result: result("final_answer", 2, 1, "Done.", "end_turn"),
      requests: 2,
      createdFiles: ["toolu_new"],
      answers: { toolu_new: "ran" },
    },
  },
  {
    name: "runs the calls of a pause_turn turn, and goes on",
    row: "one or more tool_use blocks (any other stop reason)",
    script: [
      reply([creating("toolu_p")], { stopReason: "pause_turn", usage: usageOf(1) }),
      textReply("Done.", { usage: usageOf(2) }),
      never,
    ],
    expected: {
      result: result("final_answer", 2, 1, "Done.", "end_turn"),
      requests: 2,
      createdFiles: ["toolu_p"],
      answers: { toolu_p: "ran" },
    },
  },
  {
    name: "sends the history again as it is after pause_turn without a tool call, the continuation merged",
    row: "provider stop pause_turn, no tool_use",
    script: [
      reply([text("Searching."), { type: "other", block: serverToolUse }], {
        stopReason: "pause_turn",
        usage: usageOf(1),
      }),
      textReply("Found it.", { usage: usageOf(2) }),
      never,
    ],
    expected: {
      result: result("final_answer", 2, 0, "Found it.", "end_turn"),
      requests: 2,
      createdFiles: [],
      answers: {},
      resends: { role: "assistant", content: [{ type: "text", text: "Searching." }, serverToolUse as never] },
    },
  },
  {
    name: "stops on max_tokens with the partial text, and never runs the cut call, which is answered",
    row: "provider stop max_tokens or model_context_window_exceeded",
    script: [
      reply([text("I'll create the file"), creating("toolu_cut")], { stopReason: "max_tokens", usage: usageOf(1) }),
      never,
    ],
    expected: {
      result: result("max_tokens", 1, 0, "I'll create the file", "max_tokens"),
      requests: 1,
      createdFiles: [],
      answers: { toolu_cut: "not_run" },
    },
  },
  {
    name: "stops on model_context_window_exceeded as on max_tokens, and never runs the cut call",
    row: "provider stop max_tokens or model_context_window_exceeded",
    script: [
      reply([text("I'll create"), creating("toolu_cut")], {
        stopReason: "model_context_window_exceeded",
        usage: usageOf(1),
      }),
      never,
    ],
    expected: {
      result: result("max_tokens", 1, 0, "I'll create", "model_context_window_exceeded"),
      requests: 1,
      createdFiles: [],
      answers: { toolu_cut: "not_run" },
    },
  },
  {
    name: "stops on max_tokens without a tool call, keeping the partial text",
    row: "provider stop max_tokens or model_context_window_exceeded",
    script: [textReply("The answer is", { stopReason: "max_tokens", usage: usageOf(1) }), never],
    expected: {
      result: result("max_tokens", 1, 0, "The answer is", "max_tokens"),
      requests: 1,
      createdFiles: [],
      answers: {},
    },
  },
  {
    name: "ends a refusal as final_answer, and never runs a call that comes with it, which is answered",
    row: "provider stop refusal",
    script: [
      reply([text("I can't help with that."), creating("toolu_r")], { stopReason: "refusal", usage: usageOf(1) }),
      never,
    ],
    expected: {
      result: result("final_answer", 1, 0, "I can't help with that.", "refusal"),
      requests: 1,
      createdFiles: [],
      answers: { toolu_r: "not_run" },
    },
  },
  {
    name: "ends a refusal with no content as final_answer, its empty turn kept in a valid history",
    row: "provider stop refusal",
    // the API's own refusal: no content at all (as recorded in testkit/fixtures)
    script: [reply([], { stopReason: "refusal", usage: usageOf(1) }), never],
    expected: {
      result: result("final_answer", 1, 0, "", "refusal"),
      requests: 1,
      createdFiles: [],
      answers: {},
    },
  },
  {
    name: "stops with max_turns after DEFAULT_MAX_TURNS model calls, the last turn's calls still answered",
    row: "the turn budget is spent",
    script: [
      ...Array.from({ length: DEFAULT_MAX_TURNS }, (_, i) =>
        reply([creating(`toolu_turn${i + 1}`)], { usage: usageOf(i + 1) }),
      ),
      never,
    ],
    expected: {
      result: result("max_turns", DEFAULT_MAX_TURNS, DEFAULT_MAX_TURNS, "", "tool_use"),
      requests: DEFAULT_MAX_TURNS,
      createdFiles: Array.from({ length: DEFAULT_MAX_TURNS }, (_, i) => `toolu_turn${i + 1}`).sort(),
      answers: Object.fromEntries(Array.from({ length: DEFAULT_MAX_TURNS }, (_, i) => [`toolu_turn${i + 1}`, "ran"])),
    },
  },
  {
    name: "ends with final_answer, not max_turns, when the last allowed turn answers",
    row: "the turn budget is spent",
    script: [
      ...Array.from({ length: DEFAULT_MAX_TURNS - 1 }, (_, i) =>
        reply([creating(`toolu_turn${i + 1}`)], { usage: usageOf(i + 1) }),
      ),
      textReply("Done on the last turn.", { usage: usageOf(DEFAULT_MAX_TURNS) }),
      never,
    ],
    expected: {
      result: result("final_answer", DEFAULT_MAX_TURNS, DEFAULT_MAX_TURNS - 1, "Done on the last turn.", "end_turn"),
      requests: DEFAULT_MAX_TURNS,
      createdFiles: Array.from({ length: DEFAULT_MAX_TURNS - 1 }, (_, i) => `toolu_turn${i + 1}`).sort(),
      answers: Object.fromEntries(
        Array.from({ length: DEFAULT_MAX_TURNS - 1 }, (_, i) => [`toolu_turn${i + 1}`, "ran"]),
      ),
    },
  },
];

/** Where a loop's events go, as the runner listens to them. */
export type ContractListener = (event: { type: string }) => void;

/**
 * A chapter's loop as the runner calls it: run on `messages` in `cwd` with this client, its
 * defaults otherwise (the turn budget included), telling its events to `emit`. s01 and s02 hand
 * the client to their loop; s03 on wrap it (`sendStreamed(client)`).
 */
export type ContractLoop = (
  client: Anthropic,
  messages: MessageParam[],
  cwd: string,
  emit: ContractListener,
) => Promise<AgentLoopResult<string>>;

/** What happened when a loop played one case, as plain data to assert on. */
export interface LoopContractOutcome {
  /** The loop's result (`null` when it threw). */
  result: AgentLoopResult<string> | null;
  /** The message of the error the loop threw (`null` when it returned). */
  errorMessage: string | null;
  /** The messages each request sent, in order. */
  sent: MessageParam[][];
  /** Files in the working directory after the run, sorted. */
  createdFiles: string[];
  /** The history after the run (a copy, taken before the next prompt). */
  history: MessageParam[];
  /** `historyProblems` of the history after the run; empty when the API would accept it. */
  historyProblems: string[];
  /** Every event the loop told, in order. */
  events: { type: string }[];
  /**
   * A next prompt on the same history, answered by a fresh scripted model (which rejects an
   * invalid history as the API does): `null` when it was answered, else what went wrong.
   */
  nextPromptProblem: string | null;
}

/** How to run a case. */
export interface RunLoopContractOptions {
  /** Where the tools run (default: a fresh temp directory, removed afterwards); it should be empty. */
  cwd?: string;
  /** The prompt the history starts with. */
  prompt?: string;
}

/**
 * Play `rule` against `loop` and report what happened; then send a next prompt on the same
 * history, as a REPL would.
 * Contract: never throws for anything the loop does; a throw is reported in `errorMessage`.
 */
export async function runLoopContractCase(
  rule: LoopContractCase,
  loop: ContractLoop,
  options: RunLoopContractOptions = {},
): Promise<LoopContractOutcome> {
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), "loop-contract-"));
  try {
    const model = new ScriptedModel({ script: [...rule.script] });
    const messages: MessageParam[] = [{ role: "user", content: options.prompt ?? "Please do the task." }];
    const events: { type: string }[] = [];
    let result: AgentLoopResult<string> | null = null;
    let errorMessage: string | null = null;
    try {
      result = await loop(model.client({ maxRetries: 0 }), messages, cwd, (event) => events.push(event));
    } catch (error) {
      errorMessage = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    const outcome: LoopContractOutcome = {
      result,
      errorMessage,
      sent: model.requests.map((request) => request.body.messages),
      createdFiles: visibleFiles(cwd),
      history: structuredClone(messages),
      historyProblems: historyProblems(messages),
      events,
      nextPromptProblem: null,
    };
    outcome.nextPromptProblem = await nextPromptProblem(loop, messages, cwd);
    return outcome;
  } finally {
    if (!options.cwd) rmSync(cwd, { recursive: true, force: true });
  }
}

/** Send one more prompt on `messages`; `null` when it is answered and the history stays valid. */
async function nextPromptProblem(loop: ContractLoop, messages: MessageParam[], cwd: string): Promise<string | null> {
  const model = new ScriptedModel({ script: [textReply("Still here.")] });
  appendUserText(messages, "Are you still there?");
  try {
    const result = await loop(model.client({ maxRetries: 0 }), messages, cwd, () => {});
    if (result.stopReason !== "final_answer") return `the next prompt ended with ${result.stopReason}`;
  } catch (error) {
    return `the next prompt threw: ${error instanceof Error ? error.message : String(error)}`;
  }
  const problems = historyProblems(messages);
  return problems.length > 0 ? `after the next prompt: ${problems.join("; ")}` : null;
}

/** Names in `dir`, hidden ones (a trace directory) left out. */
function visibleFiles(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => !name.startsWith("."))
        .sort()
    : [];
}

/** The fields of COURSE.md's AgentLoopResult, in its order. */
const RESULT_FIELDS = ["stopReason", "turns", "toolCalls", "finalText", "providerStopReason", "usage"];

type Block = { type: string; id?: string; tool_use_id?: string; is_error?: boolean; content?: unknown };
const blocksOf = (message: MessageParam | undefined): Block[] =>
  !message ? [] : typeof message.content === "string" ? [{ type: "text" }] : (message.content as Block[]);

/**
 * What an outcome got wrong against the contract: one line per broken rule, empty when the loop
 * read the case as every loop must.
 */
export function loopContractMismatches(rule: LoopContractCase, outcome: LoopContractOutcome): string[] {
  const expected = rule.expected;
  const problems: string[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const { result } = outcome;
  if (!result) problems.push(`threw ${outcome.errorMessage}`);
  else {
    const fields = Object.keys(result);
    if (!same([...fields].sort(), [...RESULT_FIELDS].sort())) {
      problems.push(`the result's fields are ${fields.join(", ")}, not ${RESULT_FIELDS.join(", ")}`);
    }
    if (!same(JSON.parse(JSON.stringify(result)), expected.result)) {
      problems.push(`returned ${JSON.stringify(result)}, expected ${JSON.stringify(expected.result)}`);
    }
  }
  if (outcome.sent.length !== expected.requests) {
    problems.push(`made ${outcome.sent.length} requests, expected ${expected.requests}`);
  }
  if (!same(outcome.createdFiles, expected.createdFiles)) {
    problems.push(`created ${JSON.stringify(outcome.createdFiles)}, expected ${JSON.stringify(expected.createdFiles)}`);
  }
  for (const problem of outcome.historyProblems) problems.push(`history: ${problem}`);
  problems.push(...answerProblems(outcome.history, expected.answers));
  if (expected.resends) {
    const [first, second] = outcome.sent;
    if (!first || !second || !same(second, [...first, expected.resends])) {
      problems.push(
        `the request after the pause sent ${JSON.stringify(second?.slice(first?.length ?? 0))}, ` +
          `not the history as it was plus ${JSON.stringify(expected.resends)}`,
      );
    }
  }
  problems.push(...eventProblems(outcome));
  if (outcome.nextPromptProblem !== null) problems.push(`next prompt: ${outcome.nextPromptProblem}`);
  return problems;
}

/** Each expected id answered as expected, and every turn's results in its tool_use order. */
function answerProblems(history: readonly MessageParam[], answers: Record<string, CallAnswer>): string[] {
  const problems: string[] = [];
  history.forEach((message, i) => {
    if (message.role !== "assistant") return;
    const asked = blocksOf(message).flatMap((b) => (b.type === "tool_use" && b.id ? [b.id] : []));
    if (asked.length === 0) return;
    const answered = blocksOf(history[i + 1]).flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : []));
    if (JSON.stringify(answered) !== JSON.stringify(asked)) {
      problems.push(`the calls ${asked.join(", ")} were answered as ${answered.join(", ") || "nothing"}`);
    }
  });
  const results = new Map(
    history.flatMap((m) => blocksOf(m)).flatMap((b) => (b.type === "tool_result" ? [[b.tool_use_id, b]] : [])),
  );
  for (const [id, answer] of Object.entries(answers)) {
    const block = results.get(id);
    if (!block) {
      problems.push(`${id} has no result`);
      continue;
    }
    const content = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
    const notRun = block.is_error === true && /not.run/i.test(content);
    if (answer === "ran" && (block.is_error === true || notRun)) problems.push(`${id} should have run: ${content}`);
    if (answer === "not_run" && !notRun) {
      problems.push(`${id} should be answered as not run (an error saying so), got ${content}`);
    }
  }
  return problems;
}

type ContractEvent = { type: string; turnNumber?: number; call?: { id: string }; result?: unknown };

/** The loop's events against its result: one model call and turn each, one result per call run, one end last. */
function eventProblems(outcome: LoopContractOutcome): string[] {
  const { result } = outcome;
  const events = outcome.events as ContractEvent[];
  if (events.length === 0) return ["told no events (hand the fourth argument, emit, to the loop)"];
  const problems: string[] = [];
  const ofType = (type: string) => events.filter((e) => e.type === type);
  const calls = ofType("model_call").map((e) => e.turnNumber);
  const turns = outcome.sent.length;
  if (JSON.stringify(calls) !== JSON.stringify(Array.from({ length: turns }, (_, i) => i + 1))) {
    problems.push(`told model calls ${JSON.stringify(calls)} for ${turns} requests`);
  }
  if (ofType("turn").length !== turns) problems.push(`told ${ofType("turn").length} turns for ${turns} requests`);
  const started = ofType("tool_call").map((e) => e.call?.id);
  const finished = ofType("tool_result").map((e) => e.call?.id);
  if (JSON.stringify([...started].sort()) !== JSON.stringify([...finished].sort())) {
    problems.push(`told calls ${started.join(", ")} started and ${finished.join(", ")} finished`);
  }
  for (const id of finished) {
    const start = events.findIndex((e) => e.type === "tool_call" && e.call?.id === id);
    const end = events.findIndex((e) => e.type === "tool_result" && e.call?.id === id);
    if (start < 0 || start > end) problems.push(`told ${id}'s result before it started`);
  }
  if (result && finished.length !== result.toolCalls) {
    problems.push(`told ${finished.length} tool results for ${result.toolCalls} tool calls`);
  }
  const ends = ofType("end");
  if (ends.length !== 1) problems.push(`told ${ends.length} ends`);
  else if (events.at(-1) !== ends[0]) problems.push(`told ${events.at(-1)?.type} after the end`);
  else if (result && JSON.stringify(ends[0].result) !== JSON.stringify(result)) {
    problems.push(`told the end with ${JSON.stringify(ends[0].result)}, returned ${JSON.stringify(result)}`);
  }
  return problems;
}
