/**
 * The fault matrix on this chapter's loop, on every wire format, with what s11 adds in place: a
 * list with open items, todo_write in the tool map, the reminder around the call runner (due every
 * turn, so each result a case gets carries one) and the restatement on the window. Each case's
 * script goes through the format's real SDK and s09's adapter (and s10's breakpoints on the
 * Messages format). A fault meets the plan as it meets everything else: the run ends as the
 * matrix says, the history stays valid, and the list is what it was.
 */

import { ALL_TOOLS, dispatch, toolMap } from "@harness/s02-tool-dispatch";
import { fanOut } from "@harness/s04-tracing";
import { ContextWindow } from "@harness/s08-compaction";
import { type ProviderAdapter, scriptedAdapter, WIRE_FORMATS } from "@harness/s09-providers";
import { cached } from "@harness/s10-prompt-caching";
import {
  FAULT_CASES,
  type FaultMatrixLoop,
  faultCaseMismatches,
  faultCaseOn,
  runFaultCase,
} from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { Reminders } from "../src/reminders.ts";
import { restatePlan } from "../src/restate-plan.ts";
import { TodoList } from "../src/todo-list.ts";
import { todoWrite, todoWriteUngated } from "../src/todo-write.ts";
import { OPEN } from "./run-cli.ts";

/** The lists each run of the loop kept, to check after the case. */
const lists: TodoList[] = [];
/** The cases whose history carried a reminder, by format. */
const reminded = new Map<string, number>();

const loop: FaultMatrixLoop<ProviderAdapter> = (adapter, messages, cwd) => {
  const todos = new TodoList();
  todos.replace(OPEN);
  lists.push(todos);
  const reminders = new Reminders(todos, () => {}, 1);
  const send = adapter.format === "anthropic" ? cached(adapter.streamTurn, { ttl: "5m" }) : adapter.streamTurn;
  const window = new ContextWindow({
    send,
    tooLong: adapter.promptTooLong,
    model: "test-model",
    emit: restatePlan(todos),
  });
  return agentLoop(window.send, messages, {
    model: "test-model",
    cwd,
    bashTimeoutMs: 10_000,
    tools: toolMap([...ALL_TOOLS, todoWrite(todos)]),
    runCall: reminders.around(todoWriteUngated(dispatch)),
    window,
    emit: fanOut(window.observe, reminders.observe),
  });
};

describe.each(WIRE_FORMATS)("the loop on %s under the fault matrix, with a plan open", (format) => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call, keeps a valid history and the list",
    async (_, fault) => {
      lists.splice(0);
      const outcome = await runFaultCase(faultCaseOn(fault, format), loop, {
        connect: (scripted, maxRetries) =>
          scriptedAdapter(format, scripted, { maxRetries, retryDelayMs: 1, promptCacheKey: () => "k" }),
      });
      expect(faultCaseMismatches(faultCaseOn(fault, format), "streaming", outcome)).toEqual([]);
      expect(historyProblems(outcome.history)).toEqual([]);
      for (const list of lists) expect(list.items).toEqual(OPEN);
      if (JSON.stringify(outcome.history).includes("<system-reminder>"))
        reminded.set(format, (reminded.get(format) ?? 0) + 1);
    },
  );

  it("ran with reminders in the history: the cases whose calls ran got one", () => {
    expect(reminded.get(format)).toBeGreaterThan(0);
  });
});
