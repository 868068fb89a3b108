/**
 * The CLI's two seams for chapters that manage the conversation itself: REPL commands
 * (`/name [arguments]`, run on the history instead of being sent), and options for the client
 * (the scripted model's context window).
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { BadRequestError } from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { AgentTurn, appendAssistantTurn } from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";
import { usage } from "../src/parse-cli-args.ts";
import { type ChapterCli, type CliIo, type ReplCommand, runChapterCli } from "../src/run-chapter-cli.ts";

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

/** A chapter that answers each prompt with "answer N", and has a `/forget` command. */
function chapterWith(command: ReplCommand) {
  const told: MessageParam[][] = [];
  const prompts: string[] = [];
  const chapter: ChapterCli<string> = {
    command: "s00",
    summary: "a chapter for tests",
    scriptedModel: () => new ScriptedModel({ brain: demoBrain }),
    commands: [command],
    async run(history) {
      const last = history.at(-1);
      prompts.push(typeof last?.content === "string" ? last.content : "");
      const turn = AgentTurn.fromResponse({
        content: [{ type: "text", text: `answer ${prompts.length}` }],
        stop_reason: "end_turn",
      } as never);
      appendAssistantTurn(history, turn);
      return {
        stopReason: "final_answer",
        turns: 1,
        toolCalls: 0,
        finalText: "",
        providerStopReason: null,
        usage: { inputTokens: 0, outputTokens: 0 },
      };
    },
    historyChanged: (history) => void told.push(structuredClone(history) as MessageParam[]),
  };
  return { chapter, told, prompts };
}

describe("REPL commands", () => {
  it("runs /name with its arguments on the history, tells the history after, and sends nothing", async () => {
    const calls: string[] = [];
    const forget: ReplCommand = {
      name: "forget",
      help: "/forget [note]    drop the conversation",
      async run(args, history) {
        calls.push(args);
        history.splice(0, history.length);
      },
    };
    const { chapter, told, prompts } = chapterWith(forget);
    const { io } = fakeIo("first\n/forget   all of it  \nsecond\n");
    expect(await runChapterCli(chapter, [], io)).toBe(0);
    expect(calls).toEqual(["all of it"]);
    expect(prompts).toEqual(["first", "second"]);
    // after the command the history was empty: the second prompt starts it again
    expect(told.map((h) => h.length)).toEqual([2, 0, 2]);
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

  it("lists the commands in --help", async () => {
    const command = { name: "forget", help: "/forget            drop the conversation", run: async () => {} };
    const { chapter } = chapterWith(command);
    const { io, out } = fakeIo("");
    await runChapterCli(chapter, ["--help"], io);
    expect(out()).toBe(`${usage("s00", "a chapter for tests", [], {}, [command])}\n`);
    expect(out()).toContain("in the REPL:\n  /forget            drop the conversation\n");
  });
});

describe("scriptedModel", () => {
  it("gives the scripted model the chapter's context window", async () => {
    const { chapter } = chapterWith({ name: "x", help: "", run: async () => {} });
    let refused: unknown;
    chapter.scriptedModel = () => new ScriptedModel({ brain: demoBrain, contextWindow: 10 });
    chapter.run = async (history, { client, model }) => {
      refused = await client.messages.create({ model, max_tokens: 10, messages: history }).catch((e: unknown) => e);
      return {
        stopReason: "final_answer",
        turns: 0,
        toolCalls: 0,
        finalText: "",
        providerStopReason: null,
        usage: { inputTokens: 0, outputTokens: 0 },
      };
    };
    const { io } = fakeIo("");
    await runChapterCli(chapter, ["--offline", "a prompt long enough to go over ten tokens"], io);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).message).toMatch(/prompt is too long: \d+ tokens > 10 maximum/);
  });
});
