/**
 * s08 through the real CLI, resumed after a compaction: run in the test's process with a harness
 * home of its own, on the scripted model served on 127.0.0.1 (where the test reads what was sent),
 * its replies `sessionBrain`'s (written out in this folder). The request after `--continue` must
 * start from the summary, not the whole past, and pass the scripted model's strict history checks.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { historyOf, readTranscript, sessionsDir } from "@harness/s07-sessions";
import { ScriptedModel, startScriptedServer } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { cliRunner } from "@harness/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARY_OPENING } from "../src/compaction/compact-history.ts";
import { main } from "../src/main.ts";
import { sessionBrain } from "./session-brain.ts";

const { cleanEnv, project, runHere } = cliRunner("s08-compaction", { main });

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const parts = Object.fromEntries(
  Array.from({ length: 7 }, (_, i) => [
    `part-${i + 1}.txt`,
    `${Array.from({ length: 151 }, (_, k) => (i + 1) * 1000 + k).join("\n")}\n`,
  ]),
);
const reads = Array.from({ length: 7 }, (_, i) => `Read part-${i + 1}.txt and summarise it`);
const RECALL = "What is the release codename you noted?";

describe("pnpm s08 --continue after a compaction", () => {
  it("sends the summary and the tail after the resume, not the whole past, a history the API accepts", async () => {
    const cwd = project(parts);
    const model = new ScriptedModel({ brain: sessionBrain, contextWindow: 4000 });
    const server = await startScriptedServer(model);
    servers.push(server);
    const env = cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url, HARNESS_HOME: project() });
    const window = ["--context-window", "4000", "--cwd", cwd];

    // a session that compacts, then quits (its input ends)
    const first = await runHere(window, env, `${["Note: the release codename is BLUE-HERON.", ...reads].join("\n")}\n`);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^context: over the threshold: summarised \d+ messages/m);
    const [file] = readdirSync(sessionsDir(cwd, env)).filter((name) => name.endsWith(".jsonl"));
    const { records } = readTranscript(join(sessionsDir(cwd, env), file));
    const boundaries = records.filter((record) => "compaction" in record);
    expect(boundaries.length).toBeGreaterThanOrEqual(1);
    const sentBefore = model.requests.length;

    const resumed = await runHere(["--continue", ...window, RECALL], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/^s08: loaded from the last compaction: \d+ of \d+ messages$/m);
    expect(resumed.stdout).toContain("The release codename is BLUE-HERON.");
    // every request after the resume (a summary asked for first, when the tail is still too big) opens with the summary
    const after = model.requests.slice(sentBefore).map((request) => request.body.messages);
    expect(after.length).toBeGreaterThanOrEqual(1);
    const [sent] = after;
    for (const messages of after) {
      expect(historyProblems(messages)).toEqual([]);
      expect(JSON.stringify(messages[0])).toContain(SUMMARY_OPENING);
    }
    // not the whole past: s07's reading of the file holds every message, the first prompt among them
    expect(historyOf(records).length).toBeGreaterThan(sent.length);
    expect(JSON.stringify(sent)).not.toContain(JSON.stringify(records[0].message.content));
    expect(JSON.stringify(after.at(-1)?.at(-1))).toContain(RECALL);
  }, 120_000);

  it("takes /compact before any request of the resumed session: summarised by hand, written as a boundary, recalled after", async () => {
    const cwd = project(parts);
    const model = new ScriptedModel({ brain: sessionBrain });
    const server = await startScriptedServer(model);
    servers.push(server);
    const env = cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url, HARNESS_HOME: project() });
    const first = await runHere(
      ["--cwd", cwd],
      env,
      `${["Note: the release codename is BLUE-HERON.", ...reads.slice(0, 2)].join("\n")}\n`,
    );
    expect(first.code).toBe(0);
    const sentBefore = model.requests.length;

    const resumed = await runHere(["--continue", "--cwd", cwd], env, `/compact\n${RECALL}\n`);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(
      /^s08 >> context: \/compact: summarised 10 messages, kept 0 \([\d,]+ → [\d,]+ tokens\)$/m,
    );
    expect(resumed.stdout).toContain("The release codename is BLUE-HERON.");
    // the summary was asked with the tools the session offers, though the loop had sent nothing yet
    const [summary, answer] = model.requests.slice(sentBefore).map((request) => request.body);
    expect(summary.tools?.map((tool) => (tool as { name: string }).name)).toContain("read_file");
    expect(answer.messages).toHaveLength(1); // the summary and the question, one user message
    // a third run goes on from that boundary
    const [file] = readdirSync(sessionsDir(cwd, env)).filter((name) => name.endsWith(".jsonl"));
    const { records } = readTranscript(join(sessionsDir(cwd, env), file));
    expect(records.filter((record) => "compaction" in record)).toHaveLength(1);
    const third = await runHere(["--continue", "--cwd", cwd, RECALL], env);
    expect(third.stderr).toMatch(/^s08: loaded from the last compaction: 2 of \d+ messages$/m);
  }, 120_000);
});
