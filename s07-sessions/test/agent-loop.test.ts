/**
 * s07's loop on the scripted model, its replies scripted, the transcript writer listening as main.ts
 * attaches it (and the hooks seam built as main.ts builds it): each message is on disk before it
 * joins the history (every request the model gets is in the transcript already), and the history
 * read back from the transcript is the history the loop had, through every place the loop adds a
 * message, the prompt included.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { sendStreamed } from "@harness/s03-streaming";
import { fanOut } from "@harness/s04-tracing";
import { type HookCommand, loopHooks } from "@harness/s06-hooks";
import { reply, ScriptedModel, type ScriptStep, text, textReply, toolUse } from "@harness/scripted-model";
import { appendUserText, type Emit } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { historyOf, readTranscript } from "../src/read-transcript.ts";
import { type MessageEvent, TranscriptWriter } from "../src/transcript-writer.ts";
import { header, tempDir } from "./transcript-file.ts";

/** A hook of the user's on `event`, running `command`. */
const hook = (event: HookCommand["event"], command: string): HookCommand => ({
  event,
  matcher: "",
  command,
  timeoutMs: 10_000,
  source: "local",
  file: ".harness/settings.local.json",
});

/** What the transcript holds now, as a history. */
const onDiskNow = (writer: TranscriptWriter) => historyOf(readTranscript(writer.path).records);

/**
 * Run the loop on `script` with a transcript, a fresh one or one holding `earlier` (written first,
 * as a resumed session's), and the prompt "Please do the task.". At each model call the test
 * notes what the transcript holds; `listen` hears every event after the writer.
 */
async function run(
  script: ScriptStep[],
  hooks: HookCommand[] = [],
  {
    earlier = [],
    context,
    listen,
  }: {
    earlier?: MessageParam[];
    context?: string[];
    listen?: (event: { type: string }, messages: MessageParam[], writer: TranscriptWriter) => void;
  } = {},
) {
  const cwd = tempDir("s07-loop-");
  const h = header();
  const writer = new TranscriptWriter(join(tempDir(), `${h.id}.jsonl`), h, { model: "test-model", secrets: [] });
  for (const message of earlier) writer.append(message);
  const messages = structuredClone(earlier);
  appendUserText(messages, "Please do the task."); // as the CLI adds a prompt
  const model = new ScriptedModel({ script });
  const onDiskAtCalls: MessageParam[][] = [];
  const emit: Emit<{ type: string }> = fanOut(writer.record, (event) => {
    if (event.type === "model_call") onDiskAtCalls.push(onDiskNow(writer));
    listen?.(event, messages, writer);
  });
  const seam = loopHooks({
    hooks,
    session: { sessionId: h.id, cwd },
    runProjectHooks: false,
    context,
    notice: () => {},
  });
  const result = await agentLoop(sendStreamed(model.client()), messages, {
    model: "test-model",
    cwd,
    emit,
    hooks: seam,
    bashTimeoutMs: 10_000,
  });
  writer.close();
  const sent = model.requests.map((request) => request.body.messages as MessageParam[]);
  return { result, messages, sent, onDiskAtCalls, onDisk: onDiskNow(writer), writer };
}

describe("agentLoop with a transcript", () => {
  /** Run `script`; every request found on disk as sent, and the history read back as the loop had it. */
  async function expectWrittenAsItWent(script: ScriptStep[]) {
    const { messages, sent, onDiskAtCalls, onDisk } = await run(script);
    expect(sent.length).toBeGreaterThan(0);
    expect(onDiskAtCalls).toEqual(sent);
    expect(onDisk).toEqual(messages);
  }

  it("writes a tool call, its results and the answer, each before the loop goes on", async () => {
    await expectWrittenAsItWent([
      reply([text("Looking."), toolUse("bash", { command: "echo hi" })]),
      textReply("It said hi."),
    ]);
  });

  it("tells each message before it joins the history: the transcript is a message ahead when it is told", async () => {
    const told: { message: MessageParam; lastOnDisk: MessageParam; historyCaughtUp: boolean }[] = [];
    await run([reply([toolUse("bash", { command: "echo hi" })]), textReply("It said hi.")], [], {
      listen(event, messages, writer) {
        if (event.type !== "message") return;
        const records = readTranscript(writer.path).records;
        const lastOnDisk = records.at(-1)?.message as MessageParam;
        told.push({
          message: (event as MessageEvent).message,
          lastOnDisk,
          historyCaughtUp: isDeepStrictEqual(historyOf(records), messages),
        });
      },
    });
    expect(told.map((t) => t.message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    for (const t of told) expect(t.lastOnDisk).toEqual(t.message);
    // the prompt was in the history already (the CLI put it there); every other message is on disk first
    expect(told.map((t) => t.historyCaughtUp)).toEqual([true, false, false, false]);
  });

  it("writes a turn paused and continued as two lines that read back as one message", async () => {
    await expectWrittenAsItWent([textReply("First part.", { stopReason: "pause_turn" }), textReply("Second part.")]);
  });

  it("writes a tool call cut by max_tokens and its not_run results", async () => {
    await expectWrittenAsItWent([reply([toolUse("bash", { command: "echo cut" })], { stopReason: "max_tokens" })]);
  });

  it("writes the prompt as sent, with the context the hooks added to it", async () => {
    const hooks = [hook("UserPromptSubmit", "echo 'branch: main'")];
    const { messages, sent, onDiskAtCalls, onDisk } = await run([textReply("Done.")], hooks, {
      context: ["from SessionStart"],
    });
    expect(onDiskAtCalls[0]).toEqual(sent[0]);
    expect(onDisk).toEqual(messages);
    expect(onDisk[0].content).toEqual([
      { type: "text", text: "[SessionStart hook]\nfrom SessionStart" },
      { type: "text", text: "[UserPromptSubmit hook]\nbranch: main" },
      { type: "text", text: "Please do the task." },
    ]);
  });

  it("writes the prompt without the hooks seam too: the last text the user added, as sent", async () => {
    const cwd = tempDir("s07-loop-");
    const h = header();
    const writer = new TranscriptWriter(join(tempDir(), `${h.id}.jsonl`), h, { model: "test-model", secrets: [] });
    const earlier: MessageParam[] = [{ role: "user", content: "An unanswered prompt." }];
    for (const message of earlier) writer.append(message);
    const messages = structuredClone(earlier);
    appendUserText(messages, "Please do the task."); // joined to the unanswered one, as the CLI joins it
    const model = new ScriptedModel({ script: [textReply("Done.")] });
    await agentLoop(sendStreamed(model.client()), messages, { model: "test-model", cwd, emit: writer.record });
    writer.close();
    expect(onDiskNow(writer)).toEqual(messages);
    expect(readTranscript(writer.path).records.map((record) => record.message)).toEqual([
      { role: "user", content: "An unanswered prompt." },
      { role: "user", content: [{ type: "text", text: "Please do the task." }] },
      { role: "assistant", content: [{ type: "text", text: "Done." }] },
    ]);
  });

  it("writes nothing of a prompt a UserPromptSubmit hook blocks", async () => {
    const earlier: MessageParam[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "Hello." }] },
    ];
    const blocking = [hook("UserPromptSubmit", "echo 'not today' >&2; exit 2")];
    const { result, messages, sent, onDisk } = await run([textReply("never sent")], blocking, { earlier });
    expect(result.stopReason).toBe("prompt_blocked");
    expect(sent).toEqual([]);
    expect(messages).toEqual(earlier);
    expect(onDisk).toEqual(earlier);
  });

  it("writes a prompt joined to an unanswered message as its own line, and reads it back joined", async () => {
    // a run stopped before the model answered: its prompt is the history's last message
    const earlier: MessageParam[] = [{ role: "user", content: "first" }];
    const { messages, sent, onDiskAtCalls, onDisk, writer } = await run([textReply("Done.")], [], { earlier });
    expect(messages[0].content).toEqual([
      { type: "text", text: "first" },
      { type: "text", text: "Please do the task." },
    ]);
    expect(onDiskAtCalls[0]).toEqual(sent[0]);
    expect(onDisk).toEqual(messages);
    expect(readTranscript(writer.path).records.map((r) => r.message.content)).toEqual([
      "first",
      [{ type: "text", text: "Please do the task." }],
      [{ type: "text", text: "Done." }],
    ]);
  });

  it("writes a Stop hook's reason, the message that sends the loop on", async () => {
    const once = hook(
      "Stop",
      "test -e stopped-once || { touch stopped-once; echo 'Run the tests first.' >&2; exit 2; }",
    );
    const { messages, sent, onDiskAtCalls, onDisk } = await run(
      [textReply("Done."), textReply("Tests pass. Done.")],
      [once],
    );
    expect(sent).toHaveLength(2);
    expect(onDiskAtCalls[1]).toEqual(sent[1]);
    expect(onDisk).toEqual(messages);
    expect(onDisk[2]).toEqual({ role: "user", content: "Run the tests first." });
  });

  it("records who wrote each message: the answering model and its usage, or the model the user's went to", async () => {
    const { writer } = await run([reply([toolUse("bash", { command: "echo hi" })]), textReply("Done.")]);
    const records = readTranscript(writer.path).records;
    expect(records.map((r) => [r.message.role, r.model, r.usage === undefined])).toEqual([
      ["user", "test-model", true],
      ["assistant", "scripted-model", false],
      ["user", "test-model", true],
      ["assistant", "scripted-model", false],
    ]);
  });

  it("stops with an error, keeping nothing it could not write, when the transcript cannot be written", async () => {
    const h = header();
    const writer = new TranscriptWriter(join(tempDir(), "sessions", `${h.id}.jsonl`), h, { model: "m", secrets: [] });
    const model = new ScriptedModel({ script: [textReply("An answer the disk never gets.")] });
    const gone: Emit<{ type: string }> = (event) => {
      // once the prompt is written, the directory goes from under it: the next write fails
      if (event.type === "model_call") rmSync(dirname(writer.path), { recursive: true });
    };
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    const cwd = tempDir();
    const hooks = loopHooks({ hooks: [], session: { sessionId: h.id, cwd }, runProjectHooks: false, notice: () => {} });
    await expect(
      agentLoop(sendStreamed(model.client()), messages, { model: "m", cwd, emit: fanOut(writer.record, gone), hooks }),
    ).rejects.toThrow();
    expect(model.requests).toHaveLength(1);
    expect(messages).toEqual([{ role: "user", content: "go" }]);
  });

  it("works as s06's loop with no one listening", async () => {
    const model = new ScriptedModel({ script: [textReply("Done.")] });
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    const result = await agentLoop(sendStreamed(model.client()), messages, { model: "m", cwd: tempDir() });
    expect(result).toMatchObject({ stopReason: "final_answer", finalText: "Done." });
    expect(messages).toHaveLength(2);
  });
});
