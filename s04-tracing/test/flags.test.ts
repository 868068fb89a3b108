/**
 * s04's flag and what main.ts builds from it: `--trace[=ID]` opens a trace in the project's trace
 * directory (outside --cwd) with the shell's credentials to redact, and the line after a run says
 * where it is and how to read it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { parseCliArgs } from "@harness/cli";
import { reply, ScriptedModel, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { openTrace, secretsOf, TRACE_FLAGS, whereTheTraceIs } from "../src/flags.ts";
import { traceDir } from "../src/trace-writer.ts";
import { readTrace } from "../src/viewer/read-trace.ts";
import { tempDir, tracedRun } from "./scripted-trace.ts";

/** The options the CLI parses from `argv`, started from `here`. */
const optionsOf = (argv: string[], here: string) => parseCliArgs(argv, { cwd: here }, [...TRACE_FLAGS]);

describe("openTrace", () => {
  it("opens <id>.jsonl in the project's trace directory, outside cwd, and its recorder writes there", async () => {
    const cwd = tempDir("s04-flags-");
    const env = { HARNESS_HOME: tempDir("s04-home-") };
    const trace = openTrace(optionsOf(["--trace=by-id", "--cwd", cwd, "go"], cwd), env);
    expect(trace?.writer.path).toBe(join(traceDir(cwd, env), "by-id.jsonl"));
    expect(trace?.writer.path.startsWith(join(env.HARNESS_HOME, "projects"))).toBe(true);
    const model = new ScriptedModel({ script: [reply([toolUse("glob", { pattern: "*" })]), textReply("done")] });
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    if (trace) await tracedRun(model.client(), messages, { model: "m", cwd }, trace);
    expect(readTrace(trace?.writer.path ?? "").records.map((r) => r.type)).toEqual([
      "iteration",
      "iteration",
      "result",
    ]);
    expect(readdirSync(cwd)).toEqual([]);
    expect(historyProblems(messages)).toEqual([]);
  });

  it("takes a fresh id for --trace alone, and opens nothing without it", () => {
    const cwd = tempDir("s04-flags-");
    const env = { HARNESS_TRACE_DIR: join(tempDir("s04-traces-"), "traces") };
    const fresh = openTrace(optionsOf(["go", "--trace"], cwd), env);
    expect(fresh?.writer.traceId).toMatch(/^\d{8}-\d{6}-[a-z0-9]+$/);
    expect(fresh?.writer.path).toBe(join(env.HARNESS_TRACE_DIR, `${fresh?.writer.traceId}.jsonl`));
    expect(openTrace(optionsOf(["go"], cwd), env)).toBeUndefined();
  });

  it("refuses an id that is not a file name, in one line", () => {
    const cwd = tempDir("s04-flags-");
    expect(() => openTrace(optionsOf(["--trace=../up", "go"], cwd), { HARNESS_HOME: cwd })).toThrow(
      'invalid trace id "../up": use letters, digits, . _ -',
    );
  });

  it("redacts the credentials of the environment it is given", async () => {
    const cwd = tempDir("s04-flags-");
    const key = "not-a-real-key-0123456789";
    const env = { HARNESS_HOME: tempDir("s04-home-"), OTHER_API_KEY: key };
    const trace = openTrace(optionsOf(["--trace=secret", "go"], cwd), env);
    const model = new ScriptedModel({ script: [textReply(`The key is ${key}.`)] });
    if (trace)
      await tracedRun(model.client(), [{ role: "user", content: `Is ${key} a key?` }], { model: "m", cwd }, trace);
    const raw = readFileSync(trace?.writer.path ?? "", "utf8");
    expect(raw).not.toContain(key);
    expect(raw.match(/\[REDACTED\]/g)).toHaveLength(3); // the prompt, the answer, the result's final text
  });
});

describe("secretsOf", () => {
  it("is every credential value of the environment, none shorter than 8 characters", () => {
    const secrets = secretsOf({ ANTHROPIC_API_KEY: "12345678", OTHER_AUTH_TOKEN: "1234567", HOME: "/home/someone" });
    expect(secrets).toContain("12345678");
    expect(secrets).not.toContain("1234567");
    expect(secrets).not.toContain("/home/someone");
  });
});

describe("whereTheTraceIs", () => {
  it("names the trace and the commands that read it, with --cwd when the project is not where pnpm started", () => {
    const cwd = tempDir("s04-flags-");
    const here = tempDir("s04-here-");
    const env = { HARNESS_HOME: tempDir("s04-home-"), INIT_CWD: here };
    const trace = openTrace(optionsOf(["--trace=t1", "go"], cwd), env);
    if (!trace) throw new Error("no trace");
    expect(whereTheTraceIs(trace, cwd, env)).toBe(
      `trace t1 → ${trace.writer.path}\n  pnpm trace show t1 --cwd ${cwd}   ·   pnpm trace view t1 --cwd ${cwd}`,
    );
    expect(whereTheTraceIs(trace, cwd, { ...env, INIT_CWD: cwd })).toBe(
      `trace t1 → ${trace.writer.path}\n  pnpm trace show t1   ·   pnpm trace view t1`,
    );
  });
});
