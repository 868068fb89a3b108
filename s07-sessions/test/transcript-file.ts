/**
 * Transcripts for the tests, written by the real writer: a directory of sessions, and a session
 * with a short conversation in it.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { cleanUpAfter } from "@harness/testkit";
import { type SessionHeader, TRANSCRIPT_VERSION } from "../src/store/transcript-record.ts";
import { TranscriptWriter } from "../src/transcript-writer.ts";

/** A fresh directory, removed after the test. */
export function tempDir(prefix = "s07-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanUpAfter(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A header for a new session. */
export function header(id: string = crypto.randomUUID(), cwd = "/work/demo"): SessionHeader {
  return { type: "session", version: TRANSCRIPT_VERSION, id, cwd, created: new Date().toISOString() };
}

/** A conversation: a prompt, a tool call, its result, an answer. */
export const CONVERSATION: MessageParam[] = [
  { role: "user", content: "What is the current git branch?" },
  {
    role: "assistant",
    content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: { command: "git branch --show-current" } }],
  },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "main\n[exit code 0]" }] },
  { role: "assistant", content: [{ type: "text", text: "The current branch is main." }] },
];

/** Write `messages` as a new session of the project in `cwd`, in `dir`; its path and writer. */
export function writeSession(dir: string, messages: MessageParam[] = CONVERSATION, cwd?: string) {
  const h = header(undefined, cwd);
  const writer = new TranscriptWriter(join(dir, `${h.id}.jsonl`), h, { model: "test-model", secrets: [] });
  for (const message of messages) {
    writer.append(
      message,
      message.role === "assistant"
        ? { model: "scripted-model", usage: { inputTokens: 10, outputTokens: 2 } }
        : undefined,
    );
  }
  writer.close();
  return { path: writer.path, id: h.id, writer };
}
