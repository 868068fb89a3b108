import { once } from "node:events";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { type AgentLoopResult, AgentTurn, appendAssistantTurn, isValidHistory } from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";
import { exitCodeFor } from "../src/exit-code-for.ts";
import { loadEnv } from "../src/load-env.ts";
import { type ChapterCli, type CliIo, type RunContext, runChapterCli } from "../src/run-chapter-cli.ts";

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
    scriptedModel: () => new ScriptedModel({ brain: demoBrain }),
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
      ["a_result_no_table_lists", 1],
    ])("exits with the status of %s: %i", async (stopReason, code) => {
      const { chapter } = recordingChapter(async () => result(stopReason));
      chapter.exitCodes = { aborted: 130, repeated_tool_call: 2 };
      expect(await runChapterCli(chapter, ["go"], fakeIo().io)).toBe(code);
      expect(exitCodeFor(stopReason, chapter.exitCodes)).toBe(code);
    });

    it("exits 1 for a stop reason the chapter did not declare", async () => {
      const { chapter } = recordingChapter(async () => result("aborted"));
      expect(await runChapterCli(chapter, ["go"], fakeIo().io)).toBe(1);
    });

    it("lists the chapter's own exit statuses in its help", async () => {
      const { chapter } = recordingChapter(async () => result("final_answer"));
      chapter.exitCodes = { aborted: 130 };
      const { io, out } = fakeIo();
      await runChapterCli(chapter, ["--help"], io);
      expect(out()).toContain("             this chapter: 130 aborted\n");
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
      expect(err()).toBe("s00: error: --max-turns expects a whole number of at least 1, got zero\n");
      expect(out()).toBe("");
      expect(histories).toEqual([]);
    });

    it.each([[[""]], [["   "]]])(
      "refuses an empty prompt %j with one line, rather than start the REPL",
      async (argv) => {
        const { chapter, histories } = recordingChapter(async () => result("final_answer"));
        const { io, out, err } = fakeIo("a prompt the REPL would read\n");
        expect(await runChapterCli(chapter, argv, io)).toBe(1);
        expect(err()).toBe("s00: error: the prompt is empty (to start the REPL, give no prompt at all)\n");
        expect(out()).toBe("");
        expect(histories).toEqual([]);
      },
    );

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

    it("never prints a key in the error line, though a server echoed it", async () => {
      const key = ["sk", "proj", "echoed1234567890"].join("-");
      const { chapter } = recordingChapter(async () => {
        throw new Error(`401 Incorrect API key provided: ${key}`);
      });
      const { io, err } = fakeIo("", { OPENAI_API_KEY: key });
      expect(await runChapterCli(chapter, ["--offline", "go"], io)).toBe(1);
      expect(err().trimEnd().split("\n").at(-1)).toBe("s00: error: 401 Incorrect API key provided: [REDACTED]");
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

    it("runs the lines read before the input ended, each after its prompt, though it ended before the first", async () => {
      const { chapter, histories } = recordingChapter(answering());
      const { io, out } = fakeIo("one\ntwo\n");
      // the input ends, and the REPL's line reader closes with it, before the REPL prints its first prompt
      chapter.loadHistory = () => once(io.stdin, "end").then(() => []);
      const told: MessageParam[][] = [];
      chapter.historyChanged = (history) => {
        told.push(structuredClone([...history]));
      };
      expect(await runChapterCli(chapter, [], io)).toBe(0);
      expect(histories).toHaveLength(2);
      expect(told.map((history) => history.length)).toEqual([2, 4]);
      expect(out().match(/s00 >> /g)).toHaveLength(3);
      expect(out()).toMatch(/s00 >> \n$/);
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

/** A terminal to type into: stdin is a TTY, so the CLI reads it with readline in terminal mode. */
function fakeTerminal(env: NodeJS.ProcessEnv = {}) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
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
  const exits: number[] = [];
  const io: CliIo = { stdin, stdout, stderr, env: { INIT_CWD: cwd, ...env }, exit: (code) => exits.push(code) };
  return {
    io,
    stdin,
    exits,
    out: () => out,
    err: () => err,
    /** Type keys, as a user would (a line ends with \r). */
    type: (keys: string) => stdin.write(keys),
  };
}

/** Resolve once `condition` holds (checked every few milliseconds, for at most five seconds). */
async function until(what: string, condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 5000) throw new Error(`waited 5s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("RunContext.ask", () => {
  /** A chapter whose run asks one question, records the answer, and answers with it. */
  function askingChapter(question = "Run `rm -rf build`?", choices?: ("yes" | "no" | "always")[]) {
    const answers: string[] = [];
    const chapter: ChapterCli<string> = {
      command: "s00",
      summary: "a chapter that asks",
      scriptedModel: () => new ScriptedModel({ brain: demoBrain }),
      interruptible: true,
      run: async (history, context) => {
        const answer = await context.ask(question, choices);
        answers.push(answer);
        appendAssistantTurn(
          history,
          AgentTurn.fromResponse({
            content: [{ type: "text", text: `you said ${answer}` }],
            stop_reason: "end_turn",
          } as never),
        );
        return result("final_answer", answer);
      },
    };
    return { chapter, answers };
  }

  it("asks through the REPL's own line reader, again until the answer is one of the choices", async () => {
    const { chapter, answers } = askingChapter("Run `rm -rf build`?", ["yes", "no", "always"]);
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, ["--offline"], term.io);
    await until("the REPL prompt", () => term.out().includes("s00 >> "));
    term.type("clean up\r");
    await until("the question", () => term.out().includes("Run `rm -rf build`? [y/n/a] "));
    // one reader holds the terminal: the REPL's, not a second one opened for the question
    expect(term.stdin.listenerCount("keypress")).toBe(1);
    term.type("maybe\r");
    await until("the question again", () => term.out().includes("please answer yes, no, always [y/n/a] "));
    term.type("A\r");
    await until("the answer", () => term.out().includes("── final_answer"));
    term.type("q\r");
    expect(await exited).toBe(0);
    expect(answers).toEqual(["always"]);
  });

  it("keeps the answer out of the prompts: the next line is a prompt again", async () => {
    const { chapter, answers } = askingChapter();
    const prompts: string[] = [];
    const run = chapter.run;
    chapter.run = (history, context) => {
      prompts.push(String(history.at(-1)?.content));
      return run(history, context);
    };
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, ["--offline"], term.io);
    await until("the REPL prompt", () => term.out().includes("s00 >> "));
    term.type("first\r");
    await until("the question", () => term.out().includes("[y/n] "));
    term.type("n\r");
    await until("the answer", () => term.out().split("── final_answer").length === 2);
    term.type("second\r");
    await until("the second question", () => term.out().split("[y/n] ").length === 3);
    term.type("yes\r");
    await until("the second answer", () => term.out().split("── final_answer").length === 3);
    term.stdin.end();
    expect(await exited).toBe(0);
    expect(answers).toEqual(["no", "yes"]);
    expect(prompts).toEqual(["first", expect.stringContaining("second")]);
  });

  it("answers no when Ctrl-C interrupts the question", async () => {
    const { chapter, answers } = askingChapter();
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, ["--offline"], term.io);
    await until("the REPL prompt", () => term.out().includes("s00 >> "));
    term.type("go\r");
    await until("the question", () => term.out().includes("[y/n] "));
    term.type("\x03");
    await until("the answer", () => answers.length === 1);
    term.stdin.end();
    expect(await exited).toBe(0);
    expect(answers).toEqual(["no"]);
    expect(term.exits).toEqual([]);
  });

  it("answers no to a question asked after Ctrl-D, and ends the REPL with the history told", async () => {
    const { chapter, answers } = askingChapter();
    const told: MessageParam[][] = [];
    chapter.historyChanged = (history) => {
      told.push(structuredClone([...history]));
    };
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, ["--offline"], term.io);
    await until("the REPL prompt", () => term.out().includes("s00 >> "));
    // a prompt, then Ctrl-D at once: the line reader is closed before the run asks its question
    term.type("go\r\x04");
    expect(await exited).toBe(0);
    expect(answers).toEqual(["no"]);
    expect(told).toEqual([
      [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "text", text: "you said no" }] },
      ],
    ]);
  });

  it("answers no when Ctrl-D ends the input at a question before the first prompt, and the REPL ends", async () => {
    const { chapter, histories } = recordingChapter(answering());
    const answers: string[] = [];
    chapter.loadHistory = async (context) => {
      answers.push(await context.ask("resume 1 (5b0f3c1e)?"));
      return [];
    };
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, ["--offline"], term.io);
    await until("the question", () => term.out().includes("resume 1 (5b0f3c1e)? [y/n] "));
    term.type("\x04");
    expect(await exited).toBe(0);
    expect(answers).toEqual(["no"]);
    expect(histories).toEqual([]);
    // the REPL's own prompt, not the question's, is the last thing shown
    expect(term.out()).toMatch(/s00 >> \n$/);
  });

  it("asks on the terminal in one-shot mode too, and lets go of it after", async () => {
    const { chapter, answers } = askingChapter();
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, ["--offline", "go"], term.io);
    await until("the question", () => term.out().includes("Run `rm -rf build`? [y/n] "));
    expect(term.stdin.listenerCount("keypress")).toBe(1);
    term.type("y\r");
    expect(await exited).toBe(0);
    expect(answers).toEqual(["yes"]);
    expect(term.stdin.listenerCount("keypress")).toBe(0);
  });

  it("puts questions asked at once one after the other, each answered in turn", async () => {
    const answers: string[] = [];
    const chapter: ChapterCli<string> = {
      command: "s00",
      summary: "a chapter that asks",
      scriptedModel: () => new ScriptedModel({ brain: demoBrain }),
      run: async (history, context) => {
        // two calls checked at once, each asking: the second question waits for the first answer
        const both = await Promise.all([context.ask("Read a.txt?"), context.ask("Read b.txt?")]);
        answers.push(...both);
        appendAssistantTurn(
          history,
          AgentTurn.fromResponse({ content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" } as never),
        );
        return result("final_answer");
      },
    };
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, ["--offline", "go"], term.io);
    await until("the first question", () => term.out().includes("Read a.txt? [y/n] "));
    expect(term.out()).not.toContain("Read b.txt?");
    term.type("y\r");
    await until("the second question", () => term.out().includes("Read b.txt? [y/n] "));
    term.type("n\r");
    expect(await exited).toBe(0);
    expect(answers).toEqual(["yes", "no"]);
  });

  it("answers no with no terminal, and says so once per question on stderr", async () => {
    const questions = ["Run `rm -rf build`?", "Run `rm -rf build`?", "Write notes.txt?"];
    const answers: string[] = [];
    const chapter: ChapterCli<string> = {
      command: "s00",
      summary: "a chapter that asks",
      scriptedModel: () => new ScriptedModel({ brain: demoBrain }),
      run: async (history, context) => {
        answers.push(await context.ask(questions[answers.length], ["yes", "no", "always"]));
        appendAssistantTurn(
          history,
          AgentTurn.fromResponse({ content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" } as never),
        );
        return result("final_answer");
      },
    };
    const { io, err } = fakeIo("one\ntwo\nthree\n");
    expect(await runChapterCli(chapter, ["--offline"], io)).toBe(0);
    expect(answers).toEqual(["no", "no", "no"]);
    expect(
      err()
        .split("\n")
        .filter((line) => line.includes("no terminal")),
    ).toEqual([
      's00: no terminal to ask "Run `rm -rf build`?": answered no',
      's00: no terminal to ask "Write notes.txt?": answered no',
    ]);
  });
});

describe("loadHistory and historyChanged", () => {
  const earlier: MessageParam[] = [
    { role: "user", content: "earlier" },
    { role: "assistant", content: [{ type: "text", text: "an earlier answer" }] },
  ];

  /** A chapter that answers each prompt and records every history it was told. */
  function savingChapter(answer = answering()) {
    const told: MessageParam[][] = [];
    const { chapter, histories } = recordingChapter(answer);
    chapter.historyChanged = (history) => {
      told.push(structuredClone([...history]));
    };
    return { chapter, histories, told };
  }

  it("loads the history before the first prompt, which continues it", async () => {
    const { chapter, histories } = savingChapter();
    let loaded = 0;
    chapter.loadHistory = async () => {
      loaded++;
      return structuredClone(earlier);
    };
    expect(await runChapterCli(chapter, ["--offline"], fakeIo("go on\n").io)).toBe(0);
    expect(loaded).toBe(1);
    expect(histories).toEqual([[...earlier, { role: "user", content: "go on" }]]);
  });

  it("refuses a loaded history the API would refuse, in one line, before any prompt", async () => {
    const { chapter, histories, told } = savingChapter();
    chapter.loadHistory = () => [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] },
    ];
    const { io, err } = fakeIo();
    expect(await runChapterCli(chapter, ["--offline", "next"], io)).toBe(1);
    expect(err().trimEnd().split("\n").at(-1)).toBe(
      "s00: error: the loaded history is not one the API accepts: messages.1: `tool_use` ids were found without " +
        "`tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding " +
        "`tool_result` block in the next message.",
    );
    expect(histories).toEqual([]);
    expect(told).toEqual([]);
  });

  it("refuses a loadHistory that gives no list of messages", async () => {
    const { chapter, histories } = savingChapter();
    chapter.loadHistory = () => ({ messages: [] }) as unknown as MessageParam[];
    const { io, err } = fakeIo();
    expect(await runChapterCli(chapter, ["--offline", "go"], io)).toBe(1);
    expect(err()).toContain(
      "s00: error: the loaded history is not one the API accepts: loadHistory gave no list of messages\n",
    );
    expect(histories).toEqual([]);
  });

  it("turns a loadHistory that throws into one line and exit 1", async () => {
    const { chapter, told } = savingChapter();
    chapter.loadHistory = () => {
      throw new Error("the session file is not JSON");
    };
    const { io, err } = fakeIo("never read\n");
    expect(await runChapterCli(chapter, ["--offline"], io)).toBe(1);
    expect(err()).toContain("s00: error: the session file is not JSON\n");
    expect(told).toEqual([]);
  });

  it("tells the history after each run, and not again as the REPL ends", async () => {
    const { chapter, histories, told } = savingChapter();
    expect(await runChapterCli(chapter, ["--offline"], fakeIo("one\ntwo\nq\n").io)).toBe(0);
    expect(told).toHaveLength(2);
    expect(told[0]).toEqual([...histories[0], { role: "assistant", content: [{ type: "text", text: "answer 1" }] }]);
    expect(told[1].map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("tells the history after a one-shot run, and after a run that failed", async () => {
    const once = savingChapter();
    expect(await runChapterCli(once.chapter, ["--offline", "go"], fakeIo().io)).toBe(0);
    expect(once.told).toHaveLength(1);
    const failing = savingChapter(async () => {
      throw new Error("the model is down");
    });
    expect(await runChapterCli(failing.chapter, ["--offline", "go"], fakeIo().io)).toBe(1);
    expect(failing.told).toEqual([[{ role: "user", content: "go" }]]);
  });

  it("tells nothing when no prompt ran", async () => {
    const { chapter, told } = savingChapter();
    expect(await runChapterCli(chapter, ["--offline"], fakeIo("").io)).toBe(0);
    expect(told).toEqual([]);
  });

  it("turns a historyChanged that throws into one line and exit 1", async () => {
    const { chapter } = recordingChapter(answering());
    chapter.historyChanged = () => {
      throw new Error("the disk is full");
    };
    const { io, err } = fakeIo();
    expect(await runChapterCli(chapter, ["--offline", "go"], io)).toBe(1);
    expect(err()).toContain("s00: error: the disk is full\n");
  });

  it("tells the history as the run began when Ctrl-C exits in the middle of it", async () => {
    let release = () => {};
    let started = false;
    const told: MessageParam[][] = [];
    const chapter: ChapterCli<string> = {
      command: "s00",
      summary: "a chapter Ctrl-C cannot stop",
      scriptedModel: () => new ScriptedModel({ brain: demoBrain }),
      run: async (history) => {
        // half a turn: a tool call that has no result yet
        history.push({ role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] });
        await new Promise<void>((resolve) => {
          release = resolve;
          started = true;
        });
        history.push({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "done" }] });
        return result("final_answer");
      },
      historyChanged: (history) => {
        told.push(structuredClone([...history]));
      },
    };
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, ["--offline"], term.io);
    await until("the REPL prompt", () => term.out().includes("s00 >> "));
    term.type("go\r");
    await until("the run", () => started);
    term.type("\x03");
    await until("the exit", () => term.exits.length === 1);
    expect(term.exits).toEqual([130]);
    expect(told).toEqual([[{ role: "user", content: "go" }]]);
    release();
    term.stdin.end();
    await exited;
    expect(told).toHaveLength(1); // told once: the run that ended after the exit tells nothing more
  });
});
