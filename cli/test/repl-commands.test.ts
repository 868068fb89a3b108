/**
 * The REPL's commands (`/name [arguments]`, run on the history instead of being sent) for chapters
 * that manage the conversation themselves, and the offline model a chapter's `connect` makes (the
 * scripted model with its context window).
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { BadRequestError } from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { type AgentLoopResult, AgentTurn, appendAssistantTurn } from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";
import type { ChapterCli, CliIo, ReplCommand } from "../src/chapter-cli.ts";
import { usage } from "../src/parse-cli-args.ts";
import { runChapterCli } from "../src/run-chapter-cli.ts";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "repl-commands-")));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function fakeIo(input: string) {
  const stdin = new PassThrough();
  stdin.end(input);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk) => {
    out += chunk;
  });
  stderr.on("data", (chunk) => {
    err += chunk;
  });
  const io: CliIo = { stdin, stdout, stderr, env: { INIT_CWD: cwd } };
  return { io, out: () => out, err: () => err };
}

const ANSWERED: AgentLoopResult<string> = {
  stopReason: "final_answer",
  turns: 1,
  toolCalls: 0,
  finalText: "",
  providerStopReason: null,
  usage: { inputTokens: 0, outputTokens: 0 },
};

/** A chapter that answers each prompt with "answer N", and has `command` in its session. */
function chapterWith(command: ReplCommand) {
  const afterRuns: MessageParam[][] = [];
  const prompts: string[] = [];
  const chapter: ChapterCli<string> = {
    command: "s00",
    summary: "a chapter for tests",
    commandHelp: [command.help],
    start: () => ({
      commands: [command],
      async run(history) {
        const last = history.at(-1);
        prompts.push(typeof last?.content === "string" ? last.content : "");
        const turn = AgentTurn.fromResponse({
          content: [{ type: "text", text: `answer ${prompts.length}` }],
          stop_reason: "end_turn",
        } as never);
        appendAssistantTurn(history, turn);
        return ANSWERED;
      },
      afterRun: (history) => void afterRuns.push(structuredClone(history)),
    }),
  };
  return { chapter, afterRuns, prompts };
}

describe("REPL commands", () => {
  it("runs /name with its arguments on the history, and sends nothing", async () => {
    const calls: { args: string; length: number }[] = [];
    const forget: ReplCommand = {
      name: "forget",
      help: "/forget [note]    drop the conversation",
      async run(args, history) {
        calls.push({ args, length: history.length });
        history.splice(0, history.length);
      },
    };
    const { chapter, afterRuns, prompts } = chapterWith(forget);
    const { io } = fakeIo("first\n/forget   all of it  \nsecond\n");
    expect(await runChapterCli(chapter, [], io)).toBe(0);
    expect(calls).toEqual([{ args: "all of it", length: 2 }]);
    expect(prompts).toEqual(["first", "second"]);
    // after the command the history was empty: the second prompt starts it again
    expect(afterRuns.map((h) => h.length)).toEqual([2, 2]);
    expect(afterRuns[1]).toEqual([
      { role: "user", content: "second" },
      { role: "assistant", content: [{ type: "text", text: "answer 2" }] },
    ]);
  });

  it("calls no afterRun for a command: what it changes it tells through its own events", async () => {
    const { chapter, afterRuns } = chapterWith({ name: "noop", help: "", run: async () => {} });
    const { io } = fakeIo("/noop\n/noop again\n");
    expect(await runChapterCli(chapter, [], io)).toBe(0);
    expect(afterRuns).toEqual([]);
  });

  it("sends the prompt a command hands back in the line's place, with afterRun as for a prompt (s13's /NAME)", async () => {
    const skill: ReplCommand = { name: "greet", help: "", run: async (args) => `the skill's body, for ${args}` };
    const { chapter, afterRuns, prompts } = chapterWith(skill);
    const { io } = fakeIo("/greet Ada\n");
    expect(await runChapterCli(chapter, [], io)).toBe(0);
    expect(prompts).toEqual(["the skill's body, for Ada"]);
    expect(afterRuns.map((h) => h.length)).toEqual([2]);
  });

  it("sends a line whose first word names no command as a prompt", async () => {
    const { chapter, prompts } = chapterWith({ name: "forget", help: "", run: async () => {} });
    const { io } = fakeIo("/tmp/notes.txt: what is in it?\n");
    await runChapterCli(chapter, [], io);
    expect(prompts).toEqual(["/tmp/notes.txt: what is in it?"]);
  });

  it("reports a command that throws in one line, and the REPL goes on", async () => {
    const { chapter, prompts } = chapterWith({
      name: "break",
      help: "",
      run: async () => {
        throw new Error("it broke");
      },
    });
    const { io, err } = fakeIo("/break\nstill here\n");
    expect(await runChapterCli(chapter, [], io)).toBe(0);
    expect(err()).toContain("s00: error: it broke\n");
    expect(prompts).toEqual(["still here"]);
  });

  it("gives a command a live signal of its own", async () => {
    const signals: AbortSignal[] = [];
    const { chapter } = chapterWith({
      name: "sig",
      help: "",
      run: async (_a, _h, signal) => void signals.push(signal),
    });
    await runChapterCli(chapter, [], fakeIo("/sig\n/sig\n").io);
    expect(signals).toHaveLength(2);
    expect(signals[0]).not.toBe(signals[1]);
    expect(signals.every((signal) => !signal.aborted)).toBe(true);
  });

  it("aborts a command's signal at Ctrl-C in a chapter that can be interrupted, and the REPL goes on", async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = new PassThrough();
    let out = "";
    stdout.on("data", (chunk) => {
      out += chunk;
    });
    const exits: number[] = [];
    const io: CliIo = { stdin, stdout, stderr: new PassThrough(), env: { INIT_CWD: cwd }, exit: (c) => exits.push(c) };
    let aborted = false;
    let started = false;
    const { chapter, prompts } = chapterWith({
      name: "compact",
      help: "",
      run: (_args, _history, signal) =>
        new Promise<void>((resolve) => {
          started = true;
          signal.addEventListener("abort", () => {
            aborted = true;
            resolve();
          });
        }),
    });
    chapter.interruptible = true;
    const exited = runChapterCli(chapter, [], io);
    const until = async (condition: () => boolean) => {
      for (let waited = 0; !condition(); waited += 5) {
        if (waited > 5000) throw new Error("waited 5s");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await until(() => out.includes("s00 >> "));
    stdin.write("/compact\r");
    await until(() => started);
    stdin.write("\x03");
    await until(() => aborted);
    stdin.write("after\r");
    await until(() => prompts.length === 1);
    stdin.end();
    expect(await exited).toBe(0);
    expect(prompts).toEqual(["after"]);
    expect(exits).toEqual([]);
  });

  it("lists the commands' help lines in --help, without starting the session", async () => {
    const command = { name: "forget", help: "/forget            drop the conversation", run: async () => {} };
    const { chapter } = chapterWith(command);
    let started = false;
    const start = chapter.start;
    chapter.start = (cli) => {
      started = true;
      return start(cli);
    };
    const { io, out } = fakeIo("");
    await runChapterCli(chapter, ["--help"], io);
    expect(out()).toBe(`${usage("s00", "a chapter for tests", [], {}, [command.help])}\n`);
    expect(out()).toContain("in the REPL:\n  /forget            drop the conversation\n");
    expect(started).toBe(false);
  });
});

describe("CliStart.connect", () => {
  it("makes the offline model the chapter gives, with its context window", async () => {
    let refused: unknown;
    const chapter: ChapterCli<string> = {
      command: "s00",
      summary: "a chapter with a small window",
      start(cli) {
        const { client, model } = cli.connect(() => new ScriptedModel({ brain: demoBrain, contextWindow: 10 }));
        return {
          async run(history) {
            refused = await client.messages
              .create({ model, max_tokens: 10, messages: history })
              .catch((e: unknown) => e);
            return ANSWERED;
          },
        };
      },
    };
    const { io } = fakeIo("");
    await runChapterCli(chapter, ["--offline", "a prompt long enough to go over ten tokens"], io);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).message).toMatch(/prompt is too long: \d+ tokens > 10 maximum/);
  });
});
