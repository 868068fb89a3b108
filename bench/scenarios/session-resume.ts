/**
 * What sessions cost (s07). First, resuming: `openSession` on a transcript of 1,000, 10,000 and
 * 100,000 messages (the lock taken, every line parsed and checked, the history rebuilt and held
 * to the API's rules), and the time per message at each size beside the time per message at
 * 1,000, which stays flat when resuming grows linearly.
 *
 * Then writing: appending one message (`TranscriptWriter.append`, a synchronous write of one line)
 * against the same append followed by an fsync of the file, which is what it would cost to make
 * each line survive a power cut too. The conversations are the shape a coding session has: a
 * prompt, a turn with text and a tool call, its result, and an answer, repeated.
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  type MessageRecord,
  openSession,
  sessionPath,
  sessionsDir,
  TRANSCRIPT_VERSION,
  TranscriptWriter,
} from "@harness/s07-sessions";
import { atMost, type Figure, formatValue, type Section, summarize, under } from "../section.ts";

/** How the sessions scenario runs. */
export interface SessionResumeOptions {
  warmup: number;
  reps: number;
}

/** The transcript sizes resumed, in messages. */
export const RESUME_SIZES = [1_000, 10_000, 100_000];
/** The target: a 10,000-message transcript resumes well under a second. */
const TARGET_10K_MS = 1000;
/** Linear growth: the time per message at 100,000 within this factor of the time per message at 1,000. */
const LINEAR_WITHIN = 2;
/** Appends per measurement of the append cost. */
const APPENDS = 500;

/** Message `i` of a coding conversation: prompt, call, result, answer, over and over. */
function message(i: number): MessageParam {
  const n = Math.floor(i / 4);
  const id = `toolu_bench_${String(n).padStart(6, "0")}`;
  switch (i % 4) {
    case 0:
      return { role: "user", content: `Step ${n}: run the tests of the package and tell me what fails, if anything.` };
    case 1:
      return {
        role: "assistant",
        content: [
          { type: "text", text: "I'll run the tests." },
          { type: "tool_use", id, name: "bash", input: { command: "pnpm --filter @harness/shared test" } },
        ],
      };
    case 2:
      return {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: id,
            content: ` ✓ test/agent-turn.test.ts (24 tests) 41ms\n ✓ test/history-problems.test.ts (31 tests) 12ms\n Test Files  2 passed (2)\n      Tests  55 passed (55)\n[exit code 0]`,
            is_error: false,
          },
        ],
      };
    default:
      return { role: "assistant", content: [{ type: "text", text: "All 55 tests pass: nothing fails." }] };
  }
}

/** A transcript of `count` messages in the sessions directory of `cwd`; its session id. */
function writeTranscript(cwd: string, env: NodeJS.ProcessEnv, count: number): string {
  const id = crypto.randomUUID();
  const header = { type: "session" as const, version: TRANSCRIPT_VERSION, id, cwd, created: new Date().toISOString() };
  const records: MessageRecord[] = [];
  let parentId: string | null = null;
  for (let i = 0; i < count; i++) {
    const record: MessageRecord = {
      type: "message",
      id: crypto.randomUUID(),
      parentId,
      time: new Date().toISOString(),
      model: i % 2 === 1 ? "scripted-model" : "claude-sonnet-5-5",
      ...(i % 2 === 1 ? { usage: { inputTokens: 1200 + i, outputTokens: 40 } } : {}),
      message: message(i),
    };
    records.push(record);
    parentId = record.id;
  }
  const writer = new TranscriptWriter(sessionPath(sessionsDir(cwd, env), id), header, { model: "m", secrets: [] });
  writer.copy(records);
  writer.close();
  return id;
}

/** Run the sessions scenario. */
export async function sessionResume(o: SessionResumeOptions): Promise<Section> {
  const root = mkdtempSync(join(tmpdir(), "bench-sessions-"));
  const cwd = join(root, "project");
  const env = { HARNESS_HOME: join(root, "home") };
  const problems: string[] = [];
  const figures: Figure[] = [];
  try {
    // part 1: resume time against size; each repetition resumes every size, in a rotating order
    const ids = new Map(RESUME_SIZES.map((size) => [size, writeTranscript(cwd, env, size)] as const));
    const ms = new Map<number, number[]>(RESUME_SIZES.map((size) => [size, []]));
    for (let rep = -o.warmup; rep < o.reps; rep++) {
      for (let k = 0; k < RESUME_SIZES.length; k++) {
        const size = RESUME_SIZES[(k + rep + o.warmup) % RESUME_SIZES.length];
        const started = performance.now();
        const session = openSession(
          { kind: "resume", id: ids.get(size) as string, fork: false },
          { cwd, model: "m", env, secrets: [] },
        );
        const elapsed = performance.now() - started;
        session.close();
        // equal work: every message read back into the history (the conversation alternates, so one each)
        if (session.history.length !== size || session.notes.length !== 1) {
          problems.push(`${size} messages: resumed ${session.history.length}, notes ${session.notes.join("; ")}`);
        }
        if (rep >= 0) ms.get(size)?.push(elapsed);
      }
    }
    const perMessage = new Map<number, number[]>();
    for (const size of RESUME_SIZES) {
      const times = ms.get(size) ?? [];
      perMessage.set(
        size,
        times.map((t) => (t * 1000) / size),
      );
      const spread = summarize(times);
      const bytes = statSync(sessionPath(sessionsDir(cwd, env), ids.get(size) as string)).size;
      figures.push({
        label: `resume a transcript of ${size.toLocaleString("en")} messages`,
        spread,
        unit: "ms",
        detail: `${formatValue(summarize(perMessage.get(size) ?? []).median, "µs")} per message; the file is ${(bytes / 2 ** 20).toFixed(1)} MB`,
        ...(size === 10_000
          ? {
              target: under(
                spread,
                TARGET_10K_MS,
                `< ${TARGET_10K_MS} ms (10,000 messages resume well under a second)`,
              ),
            }
          : {}),
      });
    }
    const base = perMessage.get(RESUME_SIZES[0]) ?? [];
    for (const size of RESUME_SIZES.slice(1)) {
      const ratio = summarize((perMessage.get(size) ?? []).map((t, i) => t / base[i]));
      figures.push({
        label: `time per message at ${size.toLocaleString("en")} / at ${RESUME_SIZES[0].toLocaleString("en")}`,
        spread: ratio,
        unit: "x",
        detail: "flat (about 1x) when resuming grows linearly with the transcript",
        ...(size === RESUME_SIZES.at(-1)
          ? {
              target: atMost(
                ratio,
                LINEAR_WITHIN,
                `≤ ${LINEAR_WITHIN}x (linear growth: the time per message stays flat)`,
              ),
            }
          : {}),
      });
    }

    // part 2: one append, with and without an fsync after it, alternating
    const h = { type: "session" as const, version: TRANSCRIPT_VERSION, id: crypto.randomUUID(), cwd, created: "" };
    const writer = new TranscriptWriter(join(root, "append.jsonl"), h, { model: "m", secrets: [] });
    writer.append(message(0));
    const us: Record<"plain" | "fsync", number[]> = { plain: [], fsync: [] };
    for (let rep = -o.warmup; rep < o.reps; rep++) {
      for (const mode of rep % 2 === 0 ? (["plain", "fsync"] as const) : (["fsync", "plain"] as const)) {
        const fd = openSync(writer.path, "r+");
        const started = performance.now();
        for (let i = 1; i <= APPENDS; i++) {
          writer.append(message(i));
          if (mode === "fsync") fsyncSync(fd);
        }
        const elapsed = performance.now() - started;
        closeSync(fd);
        if (rep >= 0) us[mode].push((elapsed * 1000) / APPENDS);
      }
    }
    writer.close();
    const plain = summarize(us.plain);
    figures.push(
      {
        label: "append one message (a synchronous write of one line)",
        spread: plain,
        unit: "µs",
        detail: `mean of ${APPENDS} appends a repetition; a message of a few hundred bytes`,
      },
      {
        label: "append one message and fsync it / append it",
        spread: summarize(us.fsync.map((t, i) => t / us.plain[i])),
        unit: "x",
        detail: `${formatValue(summarize(us.fsync).median, "µs")} with the fsync, ${formatValue(plain.median, "µs")} without`,
      },
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return {
    title: "Sessions",
    about:
      `s07's transcripts. Resuming: \`openSession\` on a transcript of ${RESUME_SIZES.map((n) => n.toLocaleString("en")).join(", ")} ` +
      "messages (a prompt, a turn with a tool call, its result and an answer, repeated), lock taken, every line " +
      "parsed and checked, the history rebuilt and held to the API's rules; every repetition resumes each size, in " +
      "a rotating order, and the time per message at each size is set beside the time per message at " +
      `${RESUME_SIZES[0].toLocaleString("en")} in the same repetition. ` +
      `Writing: ${APPENDS} appends of one message through \`TranscriptWriter\`, with and without an fsync after each, ` +
      `alternating. ${o.warmup} warm-up repetitions, then ${o.reps} counted.`,
    figures,
    notes: [
      ...(problems.length === 0
        ? ["Equal work checked: every resume read back every message, with nothing to repair."]
        : []),
      "What carries over to a real session: a model call takes hundreds of milliseconds, so an append (a few " +
        "microseconds) costs nothing beside it, and even an fsync per line would be small; the course leaves the " +
        "fsync out, so a power cut can lose the last lines (the loader skips a torn one), while a crash or kill -9 " +
        "of the harness loses nothing written.",
    ],
    problems,
  };
}
