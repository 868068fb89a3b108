/**
 * What a plan costs (s11). First, the reminder: one scripted session through s11's loop (a
 * todo_write of five items, one in progress, then a read_file call a turn, then an answer), run
 * three ways on the scripted model with s10's cache breakpoints: with no reminder, with s11's
 * reminder (appended to the last tool_result of a due turn, so kept in the history), and with the
 * same reminder added to the due request only (a `send` wrapper below the window, the road s11 did
 * not take). The bytes each request carries, and what the cache wrote, are compared.
 *
 * Then restoring a list on resume: s07's `openSession` on a transcript of 10,000 messages with a
 * todo_write every fourth turn, and `lastWrittenList` over the history it returns, timed apart.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { ALL_TOOLS, dispatch, toolMap } from "@harness/s02-tool-dispatch";
import { type SendTurn, sendStreamed } from "@harness/s03-streaming";
import { fanOut } from "@harness/s04-tracing";
import {
  type MessageRecord,
  openSession,
  sessionPath,
  sessionsDir,
  TRANSCRIPT_VERSION,
  TranscriptWriter,
} from "@harness/s07-sessions";
import { CacheMeter, cached, sumCounts } from "@harness/s10-prompt-caching";
import {
  agentLoop,
  lastWrittenList,
  REMIND_AFTER_TURNS,
  Reminders,
  reminderFor,
  type Todo,
  TodoList,
  todoWrite,
  todoWriteUngated,
} from "@harness/s11-planning";
import { reply, ScriptedModel, textReply, toolUse } from "@harness/scripted-model";
import type { LoopEvent } from "@harness/shared";
import { type Figure, type Section, summarize } from "../section.ts";

/** How the planning scenario runs. */
export interface PlanningOptions {
  /** Model calls in the reminder session. */
  turns?: number;
  warmup: number;
  reps: number;
}

/** The plan of the reminder session: five items, the second in progress. */
const PLAN: Todo[] = [
  { content: "Read the notes", status: "completed", activeForm: "Reading the notes" },
  { content: "Run the tests", status: "in_progress", activeForm: "Running the tests" },
  { content: "Fix the bug", status: "pending", activeForm: "Fixing the bug" },
  { content: "Run them again", status: "pending", activeForm: "Running them again" },
  { content: "Write the summary", status: "pending", activeForm: "Writing the summary" },
];
const MODEL = "claude-sonnet-5-5";
const SYSTEM = "You are a coding agent working in a benchmark directory. Use the tools. Be brief.";
/** The size of the transcript resumed. */
const RESUMED = 10_000;
/** Restores timed together, per repetition (one is a few milliseconds: too short to time alone). */
const RESTORES = 20;

type Way = "none" | "history" | "request";

/** One run of the reminder session: each request's bytes, the cache's counts, the reminders sent. */
async function session(cwd: string, turns: number, way: Way) {
  const script = [
    reply([toolUse("todo_write", { todos: PLAN })]),
    ...Array.from({ length: turns - 2 }, (_, k) => reply([toolUse("read_file", { path: `file-${k + 1}.txt` })])),
    textReply("Read them all."),
  ];
  const model = new ScriptedModel({ script });
  const meter = new CacheMeter();
  const list = new TodoList();
  let reminded = 0;
  const reminders = new Reminders(list, () => reminded++);
  const streamed: SendTurn = cached(sendStreamed(model.client({ maxRetries: 0 }), 1), { ttl: "5m" });
  // the road not taken: the same count, the reminder put on the due request's copy only
  let since = 0;
  let due = false;
  const count = (event: { type: string }) => {
    const heard = event as LoopEvent;
    if (heard.type !== "turn") return;
    since = heard.turn.toolCalls.some((call) => call.name === "todo_write") ? 0 : since + 1;
    due = since >= REMIND_AFTER_TURNS && list.open > 0 && heard.turn.toolCalls.length > 0;
  };
  const requestOnly: SendTurn = (request, signal, emit) => {
    if (!due) return streamed(request, signal, emit);
    const messages = structuredClone(request.messages) as MessageParam[];
    const results = messages.at(-1)?.content as ToolResultBlockParam[];
    const last = results[results.length - 1];
    last.content = `${last.content}\n\n${reminderFor(list.items, since)}`;
    reminded++;
    due = false;
    since = 0;
    return streamed({ ...request, messages }, signal, emit);
  };
  const messages: MessageParam[] = [{ role: "user", content: "Plan the fix, then read the files one at a time." }];
  const result = await agentLoop(way === "request" ? requestOnly : streamed, messages, {
    model: MODEL,
    cwd,
    system: SYSTEM,
    maxTurns: turns,
    tools: toolMap([...ALL_TOOLS, todoWrite(list)]),
    runCall: way === "history" ? reminders.around(todoWriteUngated(dispatch)) : todoWriteUngated(dispatch),
    emit: fanOut(meter.observe, way === "history" ? reminders.observe : count),
  });
  if (result.stopReason !== "final_answer") throw new Error(`the ${way} session ended with ${result.stopReason}`);
  const bytes = model.requests.map((request) => JSON.stringify(request.body).length);
  return { bytes, counts: sumCounts(meter.turns), reminded, turns: result.turns };
}

/** A transcript of `count` messages, a todo_write every fourth turn, in the sessions directory of `cwd`; its id. */
function writeTranscript(cwd: string, env: NodeJS.ProcessEnv, count: number): string {
  const id = crypto.randomUUID();
  const header = { type: "session" as const, version: TRANSCRIPT_VERSION, id, cwd, created: new Date().toISOString() };
  const records: MessageRecord[] = [];
  let parentId: string | null = null;
  for (let i = 0; i < count; i++) {
    const n = Math.floor(i / 4);
    const call = `toolu_${String(n).padStart(6, "0")}`;
    const write = n % 4 === 0;
    const message: MessageParam = [
      { role: "user" as const, content: `Step ${n}: go on with the plan.` },
      {
        role: "assistant" as const,
        content: [
          write
            ? { type: "tool_use" as const, id: call, name: "todo_write", input: { todos: PLAN } }
            : { type: "tool_use" as const, id: call, name: "bash", input: { command: "pnpm test" } },
        ],
      },
      {
        role: "user" as const,
        content: [{ type: "tool_result" as const, tool_use_id: call, content: write ? "saved" : "ok\n[exit code 0]" }],
      },
      { role: "assistant" as const, content: [{ type: "text" as const, text: "Done with this step." }] },
    ][i % 4];
    const record: MessageRecord = {
      type: "message",
      id: crypto.randomUUID(),
      parentId,
      time: "",
      model: MODEL,
      message,
    };
    records.push(record);
    parentId = record.id;
  }
  const writer = new TranscriptWriter(sessionPath(sessionsDir(cwd, env), id), header, { model: "m", secrets: [] });
  writer.copy(records);
  writer.close();
  return id;
}

/** Run the planning scenario. */
export async function planning(o: PlanningOptions): Promise<Section> {
  const turns = o.turns ?? 31;
  const root = mkdtempSync(join(tmpdir(), "bench-planning-"));
  const problems: string[] = [];
  try {
    // part 1: the reminder's bytes, and where it is kept against the cache
    for (let k = 1; k < turns; k++) {
      const lines = Array.from({ length: 30 }, (_, i) => `export const value${k}_${i} = ${k * 100 + i}; // line ${i}`);
      writeFileSync(join(root, `file-${k}.txt`), `${lines.join("\n")}\n`);
    }
    const none = await session(root, turns, "none");
    const history = await session(root, turns, "history");
    const request = await session(root, turns, "request");
    for (const run of [none, history, request]) {
      if (run.turns !== turns) problems.push(`a session made ${run.turns} model calls, not ${turns}`);
    }
    if (history.reminded !== request.reminded || history.reminded === 0) {
      problems.push(`unequal reminders: ${history.reminded} in the history, ${request.reminded} in the request only`);
    }
    const extra = history.bytes.map((b, i) => b - none.bytes[i]);
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const one = reminderFor(PLAN, REMIND_AFTER_TURNS).length;
    const figures: Figure[] = [
      {
        label: `one reminder, a list of ${PLAN.length} items`,
        spread: summarize([one / 1024]),
        unit: "KB",
        detail: `${one} bytes; kept in the history, it rides in every request after it`,
      },
      {
        label: `bytes the reminders add per request, mean over ${turns}`,
        spread: summarize([mean(extra) / 1024]),
        unit: "KB",
        detail: `${history.reminded} reminders; ${Math.round(mean(extra))} bytes on a mean request of ${Math.round(mean(none.bytes))}`,
      },
      {
        label: "the same, as a share of the request",
        spread: summarize([(100 * mean(extra)) / mean(none.bytes)]),
        unit: "%",
      },
      {
        label: "cache writes: the reminder in the request only ÷ in the history",
        spread: summarize([request.counts.written / history.counts.written]),
        unit: "x",
        detail: `${request.counts.written.toLocaleString("en")} against ${history.counts.written.toLocaleString("en")} tokens written (${none.counts.written.toLocaleString("en")} with no reminder)`,
      },
    ];

    // part 2: restoring the list on resume, beside the resume itself
    const cwd = join(root, "project");
    const env = { HARNESS_HOME: join(root, "home") };
    const id = writeTranscript(cwd, env, RESUMED);
    const resumeMs: number[] = [];
    const restoreMs: number[] = [];
    for (let rep = -o.warmup; rep < o.reps; rep++) {
      const started = performance.now();
      const opened = openSession({ kind: "resume", id, fork: false }, { cwd, model: "m", env, secrets: [] });
      const resumed = performance.now();
      let list: Todo[] = [];
      for (let i = 0; i < RESTORES; i++) list = lastWrittenList(opened.history);
      const restored = performance.now();
      opened.close();
      if (list.length !== PLAN.length) problems.push(`the restore found ${list.length} items, not ${PLAN.length}`);
      if (rep >= 0) {
        resumeMs.push(resumed - started);
        restoreMs.push((restored - resumed) / RESTORES);
      }
    }
    figures.push(
      {
        label: `restore the list from a resumed history of ${RESUMED.toLocaleString("en")} messages`,
        spread: summarize(restoreMs),
        unit: "ms",
        detail: `the mean of ${RESTORES} restores; resuming the transcript took ${summarize(resumeMs).median.toFixed(1)} ms (median)`,
      },
      {
        label: "restore ÷ resume",
        spread: summarize(restoreMs.map((t, i) => (100 * t) / resumeMs[i])),
        unit: "%",
      },
    );
    return {
      title: "Planning (s11)",
      about:
        `The reminder: one scripted session of ${turns} model calls (a todo_write of ${PLAN.length} items, then a ` +
        "read_file call a turn, then an answer) through s11's loop with s10's breakpoints, three ways: no reminder, " +
        "s11's (appended to the last tool_result of the turn, kept in the history), and the same text added to the " +
        "due request only. Bytes are each request's JSON body; cache writes are the scripted model's emulation " +
        `(estimated tokens). Deterministic: one run each way. The restore: ${o.reps} repetitions ` +
        `(${o.warmup} warm-up) of resuming a ${RESUMED.toLocaleString("en")}-message transcript and restoring its list.`,
      figures,
      notes: [
        `Reminders sent: ${history.reminded} each way, every ${REMIND_AFTER_TURNS} turns without a todo_write.`,
        "In the request only, each reminder is gone from the next request: that request differs from the " +
          "cached prefix at the reminded result, and the turn after the last cached entry is written again.",
      ],
      problems,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
