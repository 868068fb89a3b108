import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { historyOf, readTranscript, TranscriptError } from "../src/read-transcript.ts";
import { TranscriptWriter } from "../src/transcript-writer.ts";
import { CONVERSATION, header, tempDir, writeSession } from "./transcript-file.ts";

/** Read `path` expecting an error; the file must be byte for byte what it was. */
function refused(path: string): string {
  const before = readFileSync(path);
  let message = "";
  try {
    readTranscript(path);
  } catch (error) {
    expect(error).toBeInstanceOf(TranscriptError);
    message = (error as Error).message;
  }
  expect(readFileSync(path).equals(before)).toBe(true);
  expect(message).not.toContain("\n");
  return message;
}

describe("readTranscript", () => {
  it("reads back the header, the records and the history the loop had", () => {
    const { path, id } = writeSession(tempDir());
    const transcript = readTranscript(path);
    expect(transcript.header.id).toBe(id);
    expect(transcript.torn).toBeUndefined();
    expect(historyOf(transcript.records)).toEqual(CONVERSATION);
  });

  it("keeps the fields a later format adds to a record, and builds the history from the messages alone", () => {
    const dir = tempDir();
    const writer = new TranscriptWriter(join(dir, "s.jsonl"), header(), { model: "m", secrets: [] });
    writer.append(CONVERSATION[0]);
    writer.append(CONVERSATION[1], { model: "m", usage: { inputTokens: 1, outputTokens: 1 } }, { later: { n: 1 } });
    const { records } = readTranscript(writer.path);
    expect((records[1] as unknown as { later: unknown }).later).toEqual({ n: 1 });
    expect(records[1]).toMatchObject({ type: "message", parentId: records[0].id, message: CONVERSATION[1] });
    expect(historyOf(records)).toEqual(CONVERSATION.slice(0, 2));
  });

  it("skips a torn last line, one with no newline, and says where it starts", () => {
    const { path } = writeSession(tempDir());
    const whole = readFileSync(path).length;
    const torn = '{"type":"message","id":"x","parentId":';
    appendFileSync(path, torn);
    const transcript = readTranscript(path);
    expect(transcript.records).toHaveLength(CONVERSATION.length);
    expect(transcript.torn).toEqual({ line: CONVERSATION.length + 2, offset: whole, bytes: torn.length });
  });

  it("skips a last line a power cut filled with zeros, newline or not", () => {
    const { path } = writeSession(tempDir());
    appendFileSync(path, "\0\0\0\0\0\0\0\0\n");
    expect(readTranscript(path).torn?.bytes).toBe(9);
    expect(readTranscript(path).records).toHaveLength(CONVERSATION.length);
  });

  it("refuses a bad line before the last, naming it, and leaves the file as it is", () => {
    const { path } = writeSession(tempDir());
    const text = readFileSync(path, "utf8").split("\n");
    text[2] = text[2].slice(0, 20);
    writeFileSync(path, text.join("\n"));
    expect(refused(path)).toMatch(/: line 3 is not JSON; the file is left as it is$/);
  });

  it("refuses records that do not follow one another, as two writers interleaving would leave", () => {
    const { path } = writeSession(tempDir());
    const text = readFileSync(path, "utf8").split("\n");
    [text[2], text[3]] = [text[3], text[2]];
    writeFileSync(path, text.join("\n"));
    expect(refused(path)).toContain("line 3 does not follow line 2");
  });

  it("refuses a transcript from a newer version, saying which", () => {
    const { path } = writeSession(tempDir());
    const text = readFileSync(path, "utf8").split("\n");
    text[0] = JSON.stringify({ ...JSON.parse(text[0]), version: 2, layout: "something new" });
    writeFileSync(path, text.join("\n"));
    expect(refused(path)).toContain(
      "written by a newer version of the harness (transcript version 2; this one reads up to 1)",
    );
  });

  it.each([
    [
      "a file that is not JSON",
      "just some notes\nmore notes\n",
      "not a transcript: its first line is not a session header",
    ],
    [
      "a JSON file of something else",
      '{"name":"package","version":"1.0.0"}\n',
      "not a transcript: its first line is not a session header",
    ],
    ["an empty file", "", "not a transcript: it is empty"],
    [
      "a trace",
      '{"type":"iteration","traceId":"t","run":0}\n',
      "not a transcript: its first line is not a session header",
    ],
  ])("refuses %s", (_, text, why) => {
    const path = join(tempDir(), `${crypto.randomUUID()}.jsonl`);
    writeFileSync(path, text);
    expect(refused(path)).toContain(why);
  });

  it("refuses a message line that is not a message", () => {
    const path = join(tempDir(), "x.jsonl");
    writeFileSync(
      path,
      `${JSON.stringify(header())}\n${JSON.stringify({ type: "message", id: "a", parentId: null, time: "t", model: "m", message: { role: "system", content: "x" } })}\n{}\n`,
    );
    expect(refused(path)).toContain("line 2 is not a message record");
  });
});
