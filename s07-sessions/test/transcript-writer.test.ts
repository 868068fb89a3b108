import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { failWrites } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { readTranscript } from "../src/read-transcript.ts";
import { type MessageEvent, TranscriptWriter } from "../src/transcript-writer.ts";
import { CONVERSATION, header, tempDir, writeSession } from "./transcript-file.ts";

describe("TranscriptWriter", () => {
  it("writes nothing until the first message, then the header and that message, whole", () => {
    const dir = join(tempDir(), "not", "yet");
    const h = header();
    const writer = new TranscriptWriter(join(dir, `${h.id}.jsonl`), h, { model: "m", secrets: [] });
    expect(existsSync(writer.path)).toBe(false);
    writer.append({ role: "user", content: "hi" });
    const lines = readFileSync(writer.path, "utf8").split("\n");
    expect(lines).toHaveLength(3); // header, message, and the empty string after the last newline
    expect(JSON.parse(lines[0])).toEqual(h);
    expect(JSON.parse(lines[1])).toMatchObject({
      type: "message",
      parentId: null,
      model: "m",
      message: { role: "user", content: "hi" },
    });
    expect(readdirSync(dir)).toEqual([`${h.id}.jsonl`]); // no temporary file left beside it
  });

  it("chains each record to the one before it, and gives the model's messages their model and usage", () => {
    const { path } = writeSession(tempDir());
    const { records } = readTranscript(path);
    expect(records.map((r) => r.message)).toEqual(CONVERSATION);
    expect(records.map((r) => r.parentId)).toEqual([null, ...records.slice(0, -1).map((r) => r.id)]);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    expect(records.map((r) => r.model)).toEqual(["test-model", "scripted-model", "test-model", "scripted-model"]);
    expect(records[1].usage).toEqual({ inputTokens: 10, outputTokens: 2 });
    expect(records[0].usage).toBeUndefined();
  });

  it("writes the line before append returns, a whole line with its newline", () => {
    const h = header();
    const writer = new TranscriptWriter(join(tempDir(), `${h.id}.jsonl`), h, { model: "m", secrets: [] });
    for (let i = 0; i < 5; i++) {
      const record = writer.append({ role: i % 2 === 0 ? "user" : "assistant", content: `message ${i}` });
      const text = readFileSync(writer.path, "utf8");
      expect(text.endsWith(`${JSON.stringify(record)}\n`)).toBe(true);
    }
  });

  it("never writes a key it knows, nor anything shaped like one", () => {
    const h = header();
    const secret = "a-secret-the-shell-holds-0123456789";
    const writer = new TranscriptWriter(join(tempDir(), `${h.id}.jsonl`), h, { model: "m", secrets: [secret] });
    // built here, so nothing shaped like a key sits in the source
    const shaped = ["sk", "ant", "api03", "abcdefghijklmnop"].join("-");
    writer.append({ role: "user", content: `my key is ${secret}, and ${shaped} is another` });
    const text = readFileSync(writer.path, "utf8");
    expect(text).not.toContain(secret);
    expect(text).not.toContain(shaped);
    expect(text).toContain("my key is [REDACTED], and [REDACTED] is another");
  });

  it("listens: writes each message event (the model's with its model and usage) and ignores the rest", () => {
    const h = header();
    const writer = new TranscriptWriter(join(tempDir(), `${h.id}.jsonl`), h, { model: "m", secrets: [] });
    const usage = { inputTokens: 12, outputTokens: 3 };
    writer.record({ type: "model_call" });
    writer.record({ type: "message", message: { role: "user", content: "hi" } } as MessageEvent);
    writer.record({ type: "text", text: "Hel" } as { type: string });
    writer.record({ type: "message", message: CONVERSATION[3], model: "scripted-model", usage } as MessageEvent);
    writer.record({ type: "end" });
    const { records } = readTranscript(writer.path);
    expect(records.map((r) => [r.message, r.model, r.usage])).toEqual([
      [{ role: "user", content: "hi" }, "m", undefined],
      [CONVERSATION[3], "scripted-model", usage],
    ]);
  });

  it("throws when a message cannot be written, so the run it listens to stops", () => {
    const h = header();
    const blocker = join(tempDir(), "a-file");
    writeFileSync(blocker, "");
    const writer = new TranscriptWriter(join(blocker, `${h.id}.jsonl`), h, { model: "m", secrets: [] });
    expect(() =>
      writer.record({ type: "message", message: { role: "user", content: "hi" } } as MessageEvent),
    ).toThrow();
  });

  it("says in one line that a full disk kept a new session from having a transcript, and leaves no file", () => {
    const h = header();
    const dir = tempDir();
    const path = join(dir, `${h.id}.jsonl`);
    failWrites({ matches: (file) => file.startsWith(path), room: 10 });
    const writer = new TranscriptWriter(path, h, { model: "m", secrets: [] });
    expect(() => writer.append({ role: "user", content: "hi" })).toThrow(
      `the transcript ${path} could not be written (no space left on the disk, ENOSPC): the session has none yet`,
    );
    expect(readdirSync(dir)).toEqual([]); // neither the file nor the one it was written beside
  });
});
