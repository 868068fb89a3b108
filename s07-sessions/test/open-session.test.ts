import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { INTERRUPTED } from "../src/interrupted-results.ts";
import { type OpenSession, openSession, type SessionChoice } from "../src/open-session.ts";
import { historyOf, readTranscript } from "../src/read-transcript.ts";
import { sessionsDir } from "../src/store/sessions-dir.ts";
import { CONVERSATION, tempDir, writeSession } from "./transcript-file.ts";

/** A project and a harness home, apart. */
function setting() {
  const cwd = tempDir("s07-project-");
  const env = { HARNESS_HOME: tempDir("s07-home-") };
  return { cwd, env, dir: sessionsDir(cwd, env) };
}

const opened: OpenSession[] = [];
function open(choice: SessionChoice, where: { cwd: string; env: NodeJS.ProcessEnv }): OpenSession {
  const session = openSession(choice, { ...where, model: "test-model", secrets: [] });
  opened.push(session);
  return session;
}
const closeAll = () => {
  for (const s of opened.splice(0)) s.close();
};

describe("openSession", () => {
  it("starts a new session with an empty history, its file made by the first message", () => {
    const where = setting();
    const session = open({ kind: "new" }, where);
    expect(session.history).toEqual([]);
    expect(session.notes).toEqual([]);
    expect(existsSync(session.writer.path)).toBe(false);
    expect(existsSync(join(where.dir, `${session.writer.sessionId}.lock`))).toBe(true);
    session.writer.append({ role: "user", content: "hi" });
    expect(readTranscript(session.writer.path).header).toMatchObject({ id: session.writer.sessionId, cwd: where.cwd });
    closeAll();
    expect(existsSync(join(where.dir, `${session.writer.sessionId}.lock`))).toBe(false);
  });

  it("continues the most recent session, and resumes one by id or by its first characters", () => {
    const where = setting();
    mkdirSync(where.dir, { recursive: true });
    const older = writeSession(where.dir, CONVERSATION.slice(0, 1), where.cwd);
    const newer = writeSession(where.dir, CONVERSATION, where.cwd);
    const continued = open({ kind: "continue", fork: false }, where);
    expect(continued.writer.sessionId).toBe(newer.id);
    expect(continued.history).toEqual(CONVERSATION);
    expect(continued.notes[0]).toBe(`resumed session ${newer.id}: 4 messages (${newer.path})`);
    closeAll();
    expect(open({ kind: "resume", id: older.id.slice(0, 8), fork: false }, where).writer.sessionId).toBe(older.id);
    closeAll();
    expect(() => open({ kind: "resume", id: "0000", fork: false }, where)).toThrow('no session "0000" in this project');
  });

  it("says there is nothing to continue in a project without sessions", () => {
    expect(() => open({ kind: "continue", fork: false }, setting())).toThrow(/^no session to continue in this project/);
  });

  it("answers tool calls left without results, in memory and in the file, and says so", () => {
    const where = setting();
    mkdirSync(where.dir, { recursive: true });
    const killed = writeSession(where.dir, CONVERSATION.slice(0, 2), where.cwd); // stopped while the tool ran
    const session = open({ kind: "continue", fork: false }, where);
    expect(historyProblems(session.history)).toEqual([]);
    expect(session.history.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: INTERRUPTED.content, is_error: true }],
    });
    expect(session.notes[1]).toBe('repaired: bash had no result recorded; answered "interrupted"');
    closeAll();
    // on disk: read back, nothing is left to repair
    expect(historyOf(readTranscript(killed.path).records)).toEqual(session.history);
    expect(open({ kind: "continue", fork: false }, where).notes).toHaveLength(2); // resumed; the model had not answered
  });

  it("cuts a torn last line off the file it resumes, so the next line starts on a line of its own", () => {
    const where = setting();
    mkdirSync(where.dir, { recursive: true });
    const { path } = writeSession(where.dir, CONVERSATION, where.cwd);
    const whole = readFileSync(path);
    const torn = '{"type":"message","id":"torn-by-a-crash","par';
    appendFileSync(path, torn);
    const session = open({ kind: "continue", fork: false }, where);
    expect(session.notes[1]).toBe(`skipped line 6, not whole (${torn.length} bytes: a write cut short): cut it off`);
    expect(readFileSync(path).equals(whole)).toBe(true);
    session.writer.append({ role: "user", content: "And now?" });
    expect(readTranscript(path).records).toHaveLength(5);
  });

  it("forks into a new session with forkedFrom, leaving the original byte for byte", () => {
    const where = setting();
    mkdirSync(where.dir, { recursive: true });
    const original = writeSession(where.dir, CONVERSATION.slice(0, 2), where.cwd);
    const before = readFileSync(original.path);
    const session = open({ kind: "resume", id: original.id, fork: true }, where);
    expect(session.writer.sessionId).not.toBe(original.id);
    session.writer.append({ role: "user", content: "Go on." });
    closeAll();
    expect(readFileSync(original.path).equals(before)).toBe(true);
    const fork = readTranscript(session.writer.path);
    expect(fork.header.forkedFrom).toBe(original.id);
    // the copy keeps the records' ids, so where the two part is plain; then the repair, then the prompt
    expect(fork.records.slice(0, 2)).toEqual(readTranscript(original.path).records);
    expect(fork.records).toHaveLength(4);
    expect(session.notes[0]).toBe(
      `forked session ${original.id} as ${session.writer.sessionId}: 2 messages (${session.writer.path})`,
    );
  });

  it("forks a session another running process holds, and never writes to it", async () => {
    const where = setting();
    mkdirSync(where.dir, { recursive: true });
    const original = writeSession(where.dir, CONVERSATION, where.cwd);
    const before = readFileSync(original.path);
    const holder = spawn("sleep", ["30"]);
    try {
      writeFileSync(join(where.dir, `${original.id}.lock`), `${holder.pid}\n`);
      const session = open({ kind: "continue", fork: false }, where);
      expect(session.notes[0]).toBe(
        `session ${original.id} is open in process ${holder.pid}: forked it, so neither loses a line`,
      );
      session.writer.append({ role: "user", content: "Go on." });
      closeAll();
      expect(readFileSync(original.path).equals(before)).toBe(true);
      expect(readTranscript(session.writer.path).header.forkedFrom).toBe(original.id);
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("refuses a transcript whose history the API would refuse, leaves it as it is, and releases the lock", () => {
    const where = setting();
    mkdirSync(where.dir, { recursive: true });
    const { path, id } = writeSession(where.dir, [CONVERSATION[0], CONVERSATION[2]], where.cwd); // a result answering nothing
    const before = readFileSync(path);
    expect(() => open({ kind: "continue", fork: false }, where)).toThrow(
      "its history is not one the API accepts (messages.0: `tool_result` block(s) provided when previous message does not contain any `tool_use` blocks)",
    );
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(join(where.dir, `${id}.lock`))).toBe(false);
  });

  it("refuses to keep transcripts where the model's file tools could read them", () => {
    const cwd = tempDir("s07-project-");
    expect(() => open({ kind: "new" }, { cwd, env: { HARNESS_HOME: join(cwd, "state") } })).toThrow(
      `the transcripts must be out of the tools' reach: ${join(cwd, "state", "projects")}`,
    );
    // a home inside the project under .harness/, which the tools refuse, is fine: the project is the home directory
    expect(() => open({ kind: "new" }, { cwd, env: { HARNESS_HOME: join(cwd, ".harness") } })).not.toThrow();
    closeAll();
  });
});
