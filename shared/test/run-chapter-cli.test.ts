import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentLoopResult } from "../src/agent-loop-result.ts";
import { AgentTurn } from "../src/agent-turn.ts";
import { appendAssistantTurn } from "../src/append-assistant-turn.ts";
import {
  type ChapterCli,
  type CliIo,
  EXIT_CODES,
  exitCodeFor,
  type RunContext,
  runChapterCli,
} from "../src/cli/run-chapter-cli.ts";
import { isValidHistory } from "../src/history-problems.ts";
import { loadEnv } from "../src/load-env.ts";
import { ScriptedModel } from "../src/scripted-model/scripted-model.ts";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "run-chapter-cli-")));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Streams a CLI run reads and writes, with what was written so far. */
function fakeIo(input = "", env: NodeJS.ProcessEnv = {}) {
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
  // no key in this environment: the CLI must pick the scripted model
  const io: CliIo = { stdin, stdout, stderr, env: { INIT_CWD: cwd, ...env } };
  return { io, out: () => out, err: () => err };
}

function result(stopReason: string, finalText = "done"): AgentLoopResult<string> {
  return {
    stopReason,
    turns: 1,
    toolCalls: 0,
    finalText,
    providerStopReason: "end_turn",
    usage: { inputTokens: 1, outputTokens: 2 },
  };
}

/** A chapter whose run records each history it was given and answers as a loop would. */
function recordingChapter(answer: (history: MessageParam[], context: RunContext) => Promise<AgentLoopResult<string>>) {
  const histories: MessageParam[][] = [];
  const contexts: RunContext[] = [];
  const chapter: ChapterCli<string> = {
    command: "s00",
    summary: "a chapter for tests",
    run: async (history, context) => {
      histories.push(structuredClone(history));
      contexts.push(context);
      return answer(history, context);
    },
  };
  return { chapter, histories, contexts };
}

/** A run that answers with one text turn, as the loop would append it. */
function answering(stopReason = "final_answer") {
  let n = 0;
  return async (history: MessageParam[]) => {
    n++;
    appendAssistantTurn(
      history,
      AgentTurn.fromResponse({ content: [{ type: "text", text: `answer ${n}` }], stop_reason: "end_turn" } as never),
    );
    return result(stopReason, `answer ${n}`);
  };
}

describe("runChapterCli", () => {
  describe("one prompt", () => {
    it("runs the prompt once on a fresh history and exits 0 on a final answer", async () => {
      const { chapter, histories } = recordingChapter(answering());
      const { io, out } = fakeIo();
      expect(await runChapterCli(chapter, ["--offline", "list", "files"], io)).toBe(0);
      expect(histories).toEqual([[{ role: "user", content: "list files" }]]);
      // offline, the counts are the scripted model's estimates, and the summary says so
      expect(out()).toContain(
        "── final_answer · 1 turn · 0 tool calls · ~1 in / ~2 out tokens (estimated by the scripted model)",
      );
    });

    it.each([
      ["final_answer", 0],
      ["max_turns", 2],
      ["max_tokens", 3],
      ["aborted", 130],
      ["repeated_tool_call", 2],
      ["a_result_from_a_later_chapter", 1],
    ])("exits with the status of %s: %i", async (stopReason, code) => {
      const { chapter } = recordingChapter(async () => result(stopReason));
      expect(await runChapterCli(chapter, ["go"], fakeIo().io)).toBe(code);
      expect(exitCodeFor(stopReason)).toBe(code);
    });

    it("keeps the exit table of the contract", () => {
      expect(EXIT_CODES).toEqual({ final_answer: 0, max_turns: 2, repeated_tool_call: 2, max_tokens: 3, aborted: 130 });
    });

    it("prints the result as one JSON line, the last line of stdout, with --json", async () => {
      const { chapter } = recordingChapter(async () => result("max_turns", "partial"));
      const { io, out } = fakeIo();
      expect(await runChapterCli(chapter, ["--json", "go"], io)).toBe(2);
      const lines = out().trimEnd().split("\n");
      expect(JSON.parse(lines.at(-1)!)).toEqual(result("max_turns", "partial"));
      expect(out().endsWith("\n")).toBe(true);
    });

    it("prints no JSON without --json", async () => {
      const { chapter } = recordingChapter(async () => result("final_answer"));
      const { io, out } = fakeIo();
      await runChapterCli(chapter, ["go"], io);
      expect(out()).not.toContain('"stopReason"');
    });

    it("gives the run the options, the model and a live signal", async () => {
      const { chapter, contexts } = recordingChapter(async () => result("final_answer"));
      await runChapterCli(
        chapter,
        ["--max-turns", "3", "--model", "claude-test", "--bash-timeout", "5", "go"],
        fakeIo().io,
      );
      const [context] = contexts;
      expect(context.model).toBe("claude-test");
      expect(context.options).toMatchObject({ maxTurns: 3, bashTimeoutSeconds: 5, cwd, prompt: "go" });
      expect(context.signal.aborted).toBe(false);
    });

    it("talks to the scripted model with --offline, and says so once on stderr", async () => {
      const { chapter } = recordingChapter(async (history, { client, model }) => {
        const response = await client.messages.create({ model, max_tokens: 100, messages: history });
        const turn = AgentTurn.fromResponse(response);
        appendAssistantTurn(history, turn);
        return result("final_answer", turn.text);
      });
      const { io, err } = fakeIo();
      expect(await runChapterCli(chapter, ["--offline", "--json", "Write me a poem."], io)).toBe(0);
      expect(err()).toMatch(/^Using the offline scripted model \(--offline was given\)/);
      expect(err().trimEnd().split("\n")).toHaveLength(1);
    });

    it("uses the scripted model when the environment has no key", async () => {
      const { chapter } = recordingChapter(async () => result("final_answer"));
      const { io, err } = fakeIo();
      await runChapterCli(chapter, ["go"], io);
      // the CLI still reads the repository's .env: a key there means the API (no request is sent here)
      const { values } = loadEnv({});
      if (values.ANTHROPIC_API_KEY || values.ANTHROPIC_AUTH_TOKEN)
        expect(err()).toMatch(/^Using \S+.* with ANTHROPIC_/);
      else
        expect(err()).toMatch(
          /^Using the offline scripted model \(no ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is set\)/,
        );
    });

    it("calls afterRun with the result", async () => {
      const seen: string[] = [];
      const { chapter } = recordingChapter(async () => result("max_tokens"));
      chapter.afterRun = (r) => seen.push(r.stopReason);
      await runChapterCli(chapter, ["go"], fakeIo().io);
      expect(seen).toEqual(["max_tokens"]);
    });
  });

  describe("usage", () => {
    it("prints the help and exits 0 without running", async () => {
      const { chapter, histories } = recordingChapter(async () => result("final_answer"));
      const { io, out, err } = fakeIo();
      expect(await runChapterCli(chapter, ["--help"], io)).toBe(0);
      expect(out()).toMatch(/^s00: a chapter for tests\n/);
      expect(out()).toContain("usage: pnpm s00 [options] [prompt]");
      expect(err()).toBe("");
      expect(histories).toEqual([]);
    });

    it("refuses a bad option with one line on stderr and exit 1, without running", async () => {
      const { chapter, histories } = recordingChapter(async () => result("final_answer"));
      const { io, out, err } = fakeIo();
      expect(await runChapterCli(chapter, ["--max-turns", "zero", "go"], io)).toBe(1);
      expect(err()).toBe('s00: error: --max-turns must be a whole number of at least 1, not "zero"\n');
      expect(out()).toBe("");
      expect(histories).toEqual([]);
    });

    it("refuses an unknown option the same way", async () => {
      const { chapter } = recordingChapter(async () => result("final_answer"));
      const { io, err } = fakeIo();
      expect(await runChapterCli(chapter, ["--frobnicate"], io)).toBe(1);
      expect(err()).toMatch(/^s00: error: .*--frobnicate.*\(see --help\)\n$/);
    });
  });

  describe("errors", () => {
    it("turns an error in the run into exit 1 and one line on stderr", async () => {
      const { chapter } = recordingChapter(async () => {
        throw new Error("boom\n    at somewhere (file.ts:1:1)");
      });
      const { io, err } = fakeIo();
      expect(await runChapterCli(chapter, ["--offline", "go"], io)).toBe(1);
      const lines = err().trimEnd().split("\n");
      expect(lines.at(-1)).toBe("s00: error: boom");
      expect(err()).not.toContain("at somewhere");
    });

    it("prints the stack too when DEBUG is set", async () => {
      const { chapter } = recordingChapter(async () => {
        throw new Error("boom");
      });
      const { io, err } = fakeIo("", { DEBUG: "1" });
      expect(await runChapterCli(chapter, ["--offline", "go"], io)).toBe(1);
      expect(err()).toContain("s00: error: boom\n");
      expect(err()).toMatch(/Error: boom\n\s+at /);
    });

    it("describes an API error from the model in one line", async () => {
      const failing = new ScriptedModel({ script: [{ kind: "http_error", status: 529 }] }).client({ maxRetries: 0 });
      const { chapter } = recordingChapter(async (history) => {
        await failing.messages.create({ model: "m", max_tokens: 10, messages: history });
        return result("final_answer");
      });
      const { io, err } = fakeIo();
      expect(await runChapterCli(chapter, ["--offline", "go"], io)).toBe(1);
      expect(err().trimEnd().split("\n").at(-1)).toBe(
        "s00: error: the API answered 529 overloaded_error: Overloaded (after retries)",
      );
    });

    it("removes its SIGINT handler when it returns, after an answer or an error", async () => {
      const before = process.listenerCount("SIGINT");
      await runChapterCli(recordingChapter(async () => result("final_answer")).chapter, ["go"], fakeIo().io);
      const failing = recordingChapter(async () => {
        throw new Error("boom");
      });
      await runChapterCli(failing.chapter, ["go"], fakeIo().io);
      expect(process.listenerCount("SIGINT")).toBe(before);
    });
  });

  describe("the REPL", () => {
    it("reads prompts until q, keeping the history between them", async () => {
      const { chapter, histories } = recordingChapter(answering());
      const { io, out } = fakeIo("first\n\n  second  \nq\nnever read\n");
      expect(await runChapterCli(chapter, [], io)).toBe(0);
      expect(histories).toEqual([
        [{ role: "user", content: "first" }],
        [
          { role: "user", content: "first" },
          { role: "assistant", content: [{ type: "text", text: "answer 1" }] },
          { role: "user", content: "second" },
        ],
      ]);
      expect(out()).toMatch(/^s00 >> /);
      expect(out().match(/s00 >> /g)!.length).toBeGreaterThanOrEqual(3);
    });

    it("stops at exit and at the end of input", async () => {
      const a = recordingChapter(answering());
      expect(await runChapterCli(a.chapter, [], fakeIo("one\nexit\ntwo\n").io)).toBe(0);
      expect(a.histories).toHaveLength(1);
      const b = recordingChapter(answering());
      expect(await runChapterCli(b.chapter, [], fakeIo("one\ntwo").io)).toBe(0);
      expect(b.histories).toHaveLength(2);
    });

    it("exits 0 on an empty input", async () => {
      const { chapter, histories } = recordingChapter(answering());
      expect(await runChapterCli(chapter, [], fakeIo("").io)).toBe(0);
      expect(histories).toEqual([]);
    });

    it("says once that it uses the scripted model, however many prompts", async () => {
      const { chapter } = recordingChapter(answering());
      const { io, err } = fakeIo("one\ntwo\nthree\n");
      await runChapterCli(chapter, ["--offline"], io);
      expect(err().match(/offline scripted model/g)).toHaveLength(1);
    });

    it("prints a JSON line after each prompt with --json", async () => {
      const { chapter } = recordingChapter(answering());
      const { io, out } = fakeIo("one\ntwo\n");
      await runChapterCli(chapter, ["--json"], io);
      const json = out()
        .split("\n")
        .filter((l) => l.includes('"stopReason"'))
        .map((l) => JSON.parse(l.slice(l.indexOf("{"))));
      expect(json.map((r) => r.finalText)).toEqual(["answer 1", "answer 2"]);
    });

    it("keeps the history valid after an error, for the next prompt", async () => {
      let calls = 0;
      const { chapter, histories } = recordingChapter(async (history) => {
        calls++;
        if (calls === 1) throw new Error("the model is down");
        return answering()(history);
      });
      const { io, err } = fakeIo("first\nsecond\nthird\n");
      expect(await runChapterCli(chapter, ["--offline"], io)).toBe(0);
      expect(err()).toContain("s00: error: the model is down\n");
      expect(histories).toHaveLength(3);
      for (const history of histories) expect(isValidHistory(history)).toBe(true);
      // the failed prompt is kept: the next one joins it in the same user message
      expect(histories[1]).toEqual([
        {
          role: "user",
          content: [
            { type: "text", text: "first" },
            { type: "text", text: "second" },
          ],
        },
      ]);
      expect(histories[2].map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    });

    it("drives the scripted model through several prompts with one history", async () => {
      const { chapter, histories } = recordingChapter(async (history, { client, model }) => {
        const turn = AgentTurn.fromResponse(
          await client.messages.create({ model, max_tokens: 100, messages: history }),
        );
        appendAssistantTurn(history, turn);
        return result("final_answer", turn.text);
      });
      const { io, out } = fakeIo("hello\nhello again\n");
      expect(await runChapterCli(chapter, ["--offline", "--model", "claude-test"], io)).toBe(0);
      expect(histories[1]).toHaveLength(3);
      expect(histories[1][1]).toMatchObject({
        role: "assistant",
        content: [{ type: "text", text: expect.stringMatching(/^I am the offline scripted model/) }],
      });
      expect(out()).toContain("── final_answer");
    });
  });
});
