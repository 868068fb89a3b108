/**
 * The loop contract's own tests: its cases are well formed and cover the stop-reason table, a
 * loop written to the table meets every case (asking for whole responses or streams), and the
 * runner notices what a loop that breaks a rule does. The chapters run the cases against their
 * real loops.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import {
  type AgentLoopResult,
  AgentTurn,
  appendAssistantTurn,
  bashToolDefinition,
  DEFAULT_MAX_TURNS,
  type Emit,
  type LoopEvent,
  runBashTool,
  runTally,
  stopReasonFor,
  toolError,
  toResultBlock,
} from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";
import {
  type ContractLoop,
  LOOP_CONTRACT,
  type LoopContractCase,
  loopContractMismatches,
  NEVER_REQUESTED,
  runLoopContractCase,
} from "../src/faults/loop-contract.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function caseNamed(start: string): LoopContractCase {
  const found = LOOP_CONTRACT.find((c) => c.name.startsWith(start));
  if (!found) throw new Error(`no case "${start}…"`);
  return found;
}

type Ask = (client: Anthropic, request: MessageCreateParamsNonStreaming) => Promise<Message>;
const whole: Ask = (client, request) => client.messages.create(request);
const streamed: Ask = (client, request) => client.messages.stream(request).finalMessage();

/** How a loop may break a rule (each one a mistake a loop could make). */
interface Flaws {
  /** Run the calls of a cut or refused turn. */
  runsCutCalls?: boolean;
  /** Leave the calls of a cut or refused turn unanswered. */
  leavesCutCallsUnanswered?: boolean;
  /** Nudge a paused turn on with a user message instead of sending the history as it is. */
  nudgesAfterPause?: boolean;
  /** Its own turn budget, not DEFAULT_MAX_TURNS. */
  maxTurns?: number;
  /** Tell no events. */
  silent?: boolean;
  /** Add a field of its own to the result. */
  extraField?: boolean;
  /** Answer the calls of a turn in the reverse order. */
  reversesResults?: boolean;
}

/** A loop written to the stop-reason table (as s01's is), with the flaws asked for. */
function tableLoop(ask: Ask, flaws: Flaws = {}): ContractLoop {
  return async (client, messages, cwd, listener) => {
    const emit: Emit<LoopEvent> = flaws.silent ? () => {} : listener;
    const tally = runTally(emit);
    const withFlaws = (result: AgentLoopResult<string>) =>
      flaws.extraField ? ({ ...result, model: "test-model" } as AgentLoopResult<string>) : result;
    for (let turns = 1; ; turns++) {
      const request = { model: "test-model", max_tokens: 1024, tools: [bashToolDefinition], messages };
      emit({ type: "model_call", turnNumber: turns, request });
      const response = await ask(client, request);
      const turn = AgentTurn.fromResponse(response);
      tally.turn(turn);
      appendAssistantTurn(messages, turn);
      emit({ type: "turn", turn, response });
      const stop = flaws.runsCutCalls && turn.toolCalls.length > 0 ? null : stopReasonFor(turn);
      if (stop) {
        if (turn.toolCalls.length > 0 && !flaws.leavesCutCallsUnanswered) {
          const notRun = toolError(`Error: not run; the turn stopped with "${turn.providerStopReason}".`);
          messages.push({ role: "user", content: turn.toolCalls.map((call) => toResultBlock(call, notRun)) });
        }
        return withFlaws(tally.end(stop, turns));
      }
      if (turn.toolCalls.length > 0) {
        const results = [];
        for (const call of turn.toolCalls) {
          emit({ type: "tool_call", call });
          const result = await runBashTool(call.input, { cwd });
          tally.ran(1);
          emit({ type: "tool_result", call, result });
          results.push(toResultBlock(call, result));
        }
        messages.push({ role: "user", content: flaws.reversesResults ? results.reverse() : results });
      } else if (flaws.nudgesAfterPause) {
        messages.push({ role: "user", content: "continue" });
      }
      if (turns >= (flaws.maxTurns ?? DEFAULT_MAX_TURNS)) return withFlaws(tally.end("max_turns", turns));
    }
  };
}

describe("LOOP_CONTRACT", () => {
  it("names every case once", () => {
    const names = LOOP_CONTRACT.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("covers every row of COURSE.md's stop-reason table", () => {
    expect(new Set(LOOP_CONTRACT.map((c) => c.row))).toEqual(
      new Set([
        "provider stop max_tokens or model_context_window_exceeded",
        "provider stop refusal",
        "one or more tool_use blocks",
        "one or more tool_use blocks (any other stop reason)",
        "provider stop pause_turn, no tool_use",
        "no tool_use, any other stop reason",
        "the turn budget is spent",
      ]),
    );
  });

  it("ends every script with a reply that must never be requested, one past the requests expected", () => {
    for (const rule of LOOP_CONTRACT) {
      expect(rule.script.at(-1)?.content, rule.name).toEqual([{ type: "text", text: NEVER_REQUESTED }]);
      expect(rule.script.length, rule.name).toBe(rule.expected.requests + 1);
    }
  });

  it("expects a file for each call that runs, and none for a call that does not", () => {
    for (const rule of LOOP_CONTRACT) {
      const ran = Object.entries(rule.expected.answers).flatMap(([id, answer]) => (answer === "ran" ? [id] : []));
      expect(rule.expected.createdFiles, rule.name).toEqual(ran.sort());
      expect(rule.expected.result.toolCalls, rule.name).toBe(ran.length);
    }
  });
});

describe("a loop written to the stop-reason table", () => {
  it.each(LOOP_CONTRACT.map((rule) => [rule.name, rule] as const))(
    "%s, asking for whole responses",
    async (_, rule) => {
      expect(loopContractMismatches(rule, await runLoopContractCase(rule, tableLoop(whole)))).toEqual([]);
    },
  );

  it.each(LOOP_CONTRACT.map((rule) => [rule.name, rule] as const))("%s, asking for streams", async (_, rule) => {
    expect(loopContractMismatches(rule, await runLoopContractCase(rule, tableLoop(streamed)))).toEqual([]);
  });
});

describe("loopContractMismatches", () => {
  const mismatches = async (start: string, flaws: Flaws) => {
    const rule = caseNamed(start);
    return loopContractMismatches(rule, await runLoopContractCase(rule, tableLoop(whole, flaws)));
  };

  it("names a cut call that ran", async () => {
    const found = await mismatches("stops on max_tokens with the partial text", { runsCutCalls: true });
    expect(found).toContain('created ["toolu_cut"], expected []');
    expect(found).toContain("made 2 requests, expected 1");
    expect(found.some((line) => line.startsWith("toolu_cut should be answered as not run"))).toBe(true);
  });

  it("names a refused call left unanswered, and the next prompt the API refuses", async () => {
    const found = await mismatches("ends a refusal as final_answer, and never runs", {
      leavesCutCallsUnanswered: true,
    });
    expect(found).toContain("the calls toolu_r were answered as nothing");
    expect(found).toContain("toolu_r has no result");
    expect(found.some((line) => line.startsWith("history: messages.1: `tool_use` ids were found without"))).toBe(true);
    expect(found.some((line) => line.startsWith("next prompt: the next prompt threw: 400 "))).toBe(true);
  });

  it("names a paused turn nudged on instead of sent again as it was", async () => {
    const found = await mismatches("sends the history again as it is after pause_turn", { nudgesAfterPause: true });
    expect(found.some((line) => line.startsWith("the request after the pause sent "))).toBe(true);
  });

  it("names a turn budget other than DEFAULT_MAX_TURNS", async () => {
    const found = await mismatches("stops with max_turns", { maxTurns: DEFAULT_MAX_TURNS + 1 });
    expect(found).toContain(`made ${DEFAULT_MAX_TURNS + 1} requests, expected ${DEFAULT_MAX_TURNS}`);
  });

  it("names results sent out of tool_use order", async () => {
    const found = await mismatches("runs every call of a turn", { reversesResults: true });
    expect(found).toContain("the calls toolu_1, toolu_2, toolu_3 were answered as toolu_3, toolu_2, toolu_1");
  });

  it("names a loop that tells no events, and a result with a field of its own", async () => {
    expect(await mismatches("ends a turn without tool calls that stopped with end_turn", { silent: true })).toEqual([
      "told no events (hand the fourth argument, emit, to the loop)",
    ]);
    const found = await mismatches("ends a turn without tool calls that stopped with end_turn", { extraField: true });
    expect(found[0]).toBe(
      "the result's fields are stopReason, turns, toolCalls, finalText, providerStopReason, usage, model, " +
        "not stopReason, turns, toolCalls, finalText, providerStopReason, usage",
    );
    expect(found.some((line) => line.startsWith("told the end with "))).toBe(true);
  });

  it("names events that do not match the run: a call told twice, an event after the end", async () => {
    const rule = caseNamed("runs the call of a tool_use turn");
    const noisy: ContractLoop = (client, messages, cwd, emit) =>
      tableLoop(whole)(client, messages, cwd, (event) => {
        emit(event);
        if (event.type === "tool_result") emit(event);
        if (event.type === "end") emit({ type: "notice" });
      });
    const found = loopContractMismatches(rule, await runLoopContractCase(rule, noisy));
    expect(found).toEqual([
      "told calls toolu_a started and toolu_a, toolu_a finished",
      "told 2 tool results for 1 tool calls",
      "told notice after the end",
    ]);
  });

  it("names a usage that was not summed over the turns", async () => {
    const rule = caseNamed("runs the call of a tool_use turn");
    const lastOnly: ContractLoop = async (client, messages, cwd, emit) => {
      const result = await tableLoop(whole)(client, messages, cwd, emit);
      return { ...result, usage: { inputTokens: 200, outputTokens: 2 } };
    };
    const found = loopContractMismatches(rule, await runLoopContractCase(rule, lastOnly));
    expect(found[0]).toMatch(
      /^returned .*"usage":\{"inputTokens":200,"outputTokens":2\}.*, expected .*"inputTokens":300/,
    );
  });
});

describe("runLoopContractCase", () => {
  it("reports a loop that throws, and the history it left", async () => {
    const rule = caseNamed("ends a turn without tool calls that stopped with end_turn");
    const outcome = await runLoopContractCase(rule, async () => {
      throw new TypeError("the loop broke");
    });
    expect(outcome).toMatchObject({
      result: null,
      errorMessage: "TypeError: the loop broke",
      sent: [],
      history: [{ role: "user", content: "Please do the task." }],
      historyProblems: [],
      events: [],
    });
    expect(loopContractMismatches(rule, outcome)[0]).toBe("threw TypeError: the loop broke");
  });

  it("records what each request sent and every event, in order", async () => {
    const rule = caseNamed("runs the call of a tool_use turn");
    const outcome = await runLoopContractCase(rule, tableLoop(whole), { prompt: "Create toolu_a." });
    expect(outcome.sent.map((messages) => messages.map((m) => m.role))).toEqual([
      ["user"],
      ["user", "assistant", "user"],
    ]);
    expect(outcome.events.map((e) => e.type)).toEqual([
      "model_call",
      "turn",
      "tool_call",
      "tool_result",
      "model_call",
      "turn",
      "end",
    ]);
    expect(outcome.history[0]).toEqual({ role: "user", content: "Create toolu_a." });
    expect(outcome.nextPromptProblem).toBeNull();
  });

  it("removes the working directory it made, and leaves one it was given", async () => {
    const rule = caseNamed("runs the call of a tool_use turn");
    let made = "";
    await runLoopContractCase(rule, (client, messages, cwd, emit) => {
      made = cwd;
      return tableLoop(whole)(client, messages, cwd, emit);
    });
    expect(made).not.toBe("");
    expect(existsSync(made)).toBe(false);

    const cwd = mkdtempSync(join(tmpdir(), "loop-contract-given-"));
    dirs.push(cwd);
    const outcome = await runLoopContractCase(rule, tableLoop(whole), { cwd });
    expect(outcome.createdFiles).toEqual(["toolu_a"]);
    expect(existsSync(join(cwd, "toolu_a"))).toBe(true);
  });
});
