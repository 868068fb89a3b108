/**
 * s07's loop on the scripted model: each message is on disk before the loop moves on (every request
 * the model gets is already in the transcript), and the history read back from the transcript is
 * the history the loop had, through every place the loop adds a message, the prompt included.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { MessageCreateParams, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { HookCommand } from "@harness/s06-hooks";
import { reply, ScriptedModel, type ScriptedReply, text, textReply, toolUse } from "@harness/scripted-model";
import { appendUserText } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { historyOf, readTranscript } from "../src/read-transcript.ts";
import { TranscriptWriter } from "../src/transcript-writer.ts";
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

/**
 * Run the loop on `replies` with a transcript, on a fresh one or on `earlier` (written first, as a
 * resumed session's). The model compares, at each request, what it was sent with what the
 * transcript holds.
 */
async function run(
  replies: ScriptedReply[],
  hooks: HookCommand[] = [],
  { earlier = [], promptContext }: { earlier?: MessageParam[]; promptContext?: string[] } = {},
) {
  const cwd = tempDir("s07-loop-");
  const h = header();
  const writer = new TranscriptWriter(join(tempDir(), `${h.id}.jsonl`), h, { model: "test-model", secrets: [] });
  const seen: { sent: MessageParam[]; onDisk: MessageParam[] }[] = [];
  const model = new ScriptedModel({
    brain: (request: MessageCreateParams) => {
      seen.push({ sent: request.messages, onDisk: historyOf(readTranscript(writer.path).records) });
      return replies.shift() ?? textReply("(no reply left)");
    },
  });
  for (const message of earlier) writer.append(message);
  const messages = structuredClone(earlier);
  appendUserText(messages, "Please do the task."); // as the CLI adds a prompt
  const result = await agentLoop(model.client(), messages, {
    model: "test-model",
    cwd,
    permissionMode: "bypassPermissions",
    transcript: writer,
    hooks,
    promptContext,
    bashTimeoutMs: 10_000,
  });
  writer.close();
  return { result, messages, seen, onDisk: historyOf(readTranscript(writer.path).records), writer };
}

describe("agentLoop with a transcript", () => {
  /** Run `replies`; every request found on disk as sent, and the history read back as the loop had it. */
  async function expectWrittenAsItWent(replies: ScriptedReply[]) {
    const { messages, seen, onDisk } = await run(replies);
    expect(seen.length).toBeGreaterThan(0);
    for (const { sent, onDisk: then } of seen) expect(then).toEqual(sent);
    expect(onDisk).toEqual(messages);
  }

  it("writes a tool call, its results and the answer, each before the loop goes on", async () => {
    await expectWrittenAsItWent([
      reply([text("Looking."), toolUse("bash", { command: "echo hi" })]),
      textReply("It said hi."),
    ]);
  });

  it("writes a turn paused and continued as two lines that read back as one message", async () => {
    await expectWrittenAsItWent([textReply("First part.", { stopReason: "pause_turn" }), textReply("Second part.")]);
  });

  it("writes a tool call cut by max_tokens and its not_run results", async () => {
    await expectWrittenAsItWent([reply([toolUse("bash", { command: "echo cut" })], { stopReason: "max_tokens" })]);
  });

  it("writes the prompt as sent, with the context the hooks added to it", async () => {
    const hooks = [hook("UserPromptSubmit", "echo 'branch: main'")];
    const { messages, seen, onDisk } = await run([textReply("Done.")], hooks, { promptContext: ["from SessionStart"] });
    expect(seen[0].onDisk).toEqual(seen[0].sent);
    expect(onDisk).toEqual(messages);
    expect(onDisk[0].content).toEqual([
      { type: "text", text: "Please do the task." },
      { type: "text", text: "from SessionStart" },
      { type: "text", text: "branch: main" },
    ]);
  });

  it("writes nothing of a prompt a UserPromptSubmit hook blocks", async () => {
    const earlier: MessageParam[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "Hello." }] },
    ];
    const blocking = [hook("UserPromptSubmit", "echo 'not today' >&2; exit 2")];
    const { result, messages, seen, onDisk } = await run([textReply("never sent")], blocking, { earlier });
    expect(result.stopReason).toBe("prompt_blocked");
    expect(seen).toEqual([]);
    expect(messages).toEqual(earlier);
    expect(onDisk).toEqual(earlier);
  });

  it("writes a prompt joined to an unanswered message as its own line, and reads it back joined", async () => {
    // a run stopped before the model answered: its prompt is the history's last message
    const earlier: MessageParam[] = [{ role: "user", content: "first" }];
    const { messages, seen, onDisk, writer } = await run([textReply("Done.")], [], { earlier });
    expect(messages[0].content).toEqual([
      { type: "text", text: "first" },
      { type: "text", text: "Please do the task." },
    ]);
    expect(seen[0].onDisk).toEqual(seen[0].sent);
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
    const { messages, seen, onDisk } = await run([textReply("Done."), textReply("Tests pass. Done.")], [once]);
    expect(seen).toHaveLength(2);
    expect(seen[1].onDisk).toEqual(seen[1].sent);
    expect(onDisk).toEqual(messages);
    expect(JSON.stringify(onDisk[2])).toContain("Run the tests first.");
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
    const model = new ScriptedModel({
      brain: () => {
        rmSync(dirname(writer.path), { recursive: true }); // the directory is gone from under it: the next write fails
        return textReply("An answer the disk never gets.");
      },
    });
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    await expect(
      agentLoop(model.client(), messages, { model: "m", cwd: tempDir(), transcript: writer }),
    ).rejects.toThrow();
    expect(messages).toEqual([{ role: "user", content: "go" }]);
  });

  it("works as s06's loop without a transcript", async () => {
    const model = new ScriptedModel({ script: [textReply("Done.")] });
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    const result = await agentLoop(model.client(), messages, { model: "m", cwd: tempDir() });
    expect(result).toMatchObject({ stopReason: "final_answer", finalText: "Done." });
    expect(messages).toHaveLength(2);
  });
});
