/**
 * A compaction written to s07's transcript as a boundary: s07 still opens the file (locks it,
 * checks it, repairs it), and a resume loads the summary and the tail, not the whole past.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ALL_TOOLS, toApiTool } from "@harness/s02-tool-dispatch";
import { sendStreamed } from "@harness/s03-streaming";
import { historyOf, type OpenSession, openSession, readTranscript } from "@harness/s07-sessions";
import { ScriptedModel, textReply } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { afterEach, describe, expect, it } from "vitest";
import { compactHistory, SUMMARY_OPENING } from "../src/compaction/compact-history.ts";
import { historySinceBoundary, writeBoundary } from "../src/compaction/transcript-boundary.ts";
import { estimateTokens } from "../src/measure-context.ts";
import { historyFrom, tools } from "./histories.ts";

const made: string[] = [];
const opened: OpenSession[] = [];
afterEach(() => {
  for (const session of opened.splice(0)) session.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function where() {
  const dir = (prefix: string) => {
    const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    made.push(path);
    return path;
  };
  return { cwd: dir("s08-project-"), env: { HARNESS_HOME: dir("s08-home-") }, model: "claude-test", secrets: [] };
}
const open = (...args: Parameters<typeof openSession>) => {
  const session = openSession(...args);
  opened.push(session);
  return session;
};

describe("a compaction in the transcript", () => {
  it("resumes from the boundary: the summary, the tail and what came after, not the whole past", async () => {
    const place = where();
    const session = open({ kind: "new" }, place);
    // a session as the loop writes it: each message on disk as it joins the history
    const history: MessageParam[] = [];
    const keep = (message: MessageParam) => {
      session.writer.append(message);
      history.push(message);
    };
    for (const message of historyFrom(
      [tools(1, 3000), tools(1, 3000), tools(1, 3000)],
      "Note: the deploy key is K-7731.",
    ))
      keep(message);
    const summary = "## Task\n- Note: the deploy key is K-7731.";
    const model = new ScriptedModel({ script: [textReply(summary), textReply("The deploy key is K-7731.")] });
    const outcome = await compactHistory(sendStreamed(model.client()), history, {
      model: "claude-test",
      tools: ALL_TOOLS.map(toApiTool),
      maxTokens: 1024,
      tailTokens: 1000,
      signal: new AbortController().signal,
    });
    expect(outcome.kind).toBe("compacted");
    writeBoundary(session.writer, history);
    // the conversation goes on after the compaction
    keep({ role: "assistant", content: [{ type: "text", text: "All three read." }] });
    keep({ role: "user", content: "What is the deploy key you noted?" });
    session.close();

    const resumed = open({ kind: "continue", fork: false }, place);
    const { records } = readTranscript(resumed.writer.path);
    const loaded = historySinceBoundary(records);
    expect(loaded).toEqual(history);
    expect(historyProblems(loaded)).toEqual([]);
    expect(JSON.stringify(loaded[0])).toContain(SUMMARY_OPENING);
    // s07's own view of the file is the whole past, summary included: still a history it accepts
    expect(resumed.history).toEqual(historyOf(records));
    expect(estimateTokens(loaded)).toBeLessThan(estimateTokens(resumed.history) / 2);
    // and the model, sent only what the boundary left, is sent the note, in a history it accepts
    await model.client().messages.create({ model: "m", max_tokens: 100, messages: loaded });
    const sent = model.requests.at(-1);
    expect(sent?.body.messages).toEqual(loaded);
    expect(JSON.stringify(sent?.body.messages)).toContain("the deploy key is K-7731.");
  });

  it("reads a transcript without a boundary as s07 does, and the last of several boundaries wins", async () => {
    const place = where();
    const session = open({ kind: "new" }, place);
    const plain = historyFrom([tools(1, 100)]);
    for (const message of plain) session.writer.append(message);
    expect(historySinceBoundary(readTranscript(session.writer.path).records)).toEqual(plain);
    const first: MessageParam[] = [{ role: "user", content: [{ type: "text", text: `${SUMMARY_OPENING}\n\none` }] }];
    const second: MessageParam[] = [{ role: "user", content: [{ type: "text", text: `${SUMMARY_OPENING}\n\ntwo` }] }];
    writeBoundary(session.writer, first);
    session.writer.append({ role: "assistant", content: "after one" });
    writeBoundary(session.writer, second);
    expect(historySinceBoundary(readTranscript(session.writer.path).records)).toEqual(second);
  });

  it("keeps the boundary through a fork, which copies the records as they are", async () => {
    const place = where();
    const session = open({ kind: "new" }, place);
    for (const message of historyFrom([tools(1, 100)])) session.writer.append(message);
    const compacted: MessageParam[] = [{ role: "user", content: [{ type: "text", text: `${SUMMARY_OPENING}\n\nx` }] }];
    writeBoundary(session.writer, compacted);
    session.close();
    const forked = open({ kind: "continue", fork: true }, place);
    expect(historySinceBoundary(readTranscript(forked.writer.path).records)).toEqual(compacted);
  });
});
