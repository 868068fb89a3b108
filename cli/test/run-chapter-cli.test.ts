import { once } from "node:events";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type Anthropic from "@anthropic-ai/sdk";
import { APIConnectionError } from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { demoBrain, ScriptedModel } from "@harness/scripted-model";
import { type AgentLoopResult, AgentTurn, appendAssistantTurn, historyProblems } from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";
import type { ChapterCli, ChapterSession, CliIo, CliStart } from "../src/chapter-cli.ts";
import { exitCodeFor } from "../src/exit-code-for.ts";
import { loadEnv } from "../src/load-env.ts";
import { runChapterCli } from "../src/run-chapter-cli.ts";
import type { ShownEvent } from "../src/terminal-view.ts";

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

/** The `end` event a loop tells as it returns `answered`. */
function endOf(answered: AgentLoopResult<string>): ShownEvent {
  return { type: "end", result: answered };
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

/** What a test's run is given: the history, the signal, the model `connect` chose, and the CLI. */
interface RunArgs {
  signal: AbortSignal;
  client: Anthropic;
  model: string;
  cli: CliStart;
}
type Answer = (history: MessageParam[], args: RunArgs) => Promise<AgentLoopResult<string>>;

/**
 * A chapter whose `start` connects as every chapter does (the scripted model offline) and returns
 * `session`, whose run records each history it was given and answers with `answer`, telling the
 * view its end as a loop would. A test sets the session's other fields before the CLI runs.
 */
function recordingChapter(answer: Answer) {
  const histories: MessageParam[][] = [];
  const signals: AbortSignal[] = [];
  const starts: CliStart[] = [];
  const session: ChapterSession<string> = {
    run: () => Promise.reject(new Error("start was not called")),
  };
  const chapter: ChapterCli<string> = {
    command: "s00",
    summary: "a chapter for tests",
    start(cli) {
      starts.push(cli);
      const { client, model } = cli.connect(() => new ScriptedModel({ brain: demoBrain }));
      session.run = async (history, signal) => {
        histories.push(structuredClone(history));
        signals.push(signal);
        const answered = await answer(history, { signal, client, model, cli });
        cli.view.show(endOf(answered));
        return answered;
      };
      return session;
    },
  };
  return { chapter, session, histories, signals, starts };
}

/** A run that answers with one text turn, as the loop would append it. */
function answering(stopReason = "final_answer"): Answer {
  let n = 0;
  return async (history) => {
    n++;
    appendAssistantTurn(history, textTurn(`answer ${n}`));
    return result(stopReason, `answer ${n}`);
  };
}

function textTurn(text: string): AgentTurn {
  return AgentTurn.fromResponse({ content: [{ type: "text", text }], stop_reason: "end_turn" } as never);
}

/** A run that asks the model once, on the client `connect` gave. */
const askingTheModel: Answer = async (history, { client, model }) => {
  const turn = AgentTurn.fromResponse(await client.messages.create({ model, max_tokens: 100, messages: history }));
  appendAssistantTurn(history, turn);
  return result("final_answer", turn.text);
};

/** Each history `afterRun` was told, as it was then, and the result beside it. */
function recordAfterRun(session: ChapterSession<string>) {
  const told: { history: MessageParam[]; stopReason?: string }[] = [];
  session.afterRun = (history, answered) => {
    told.push({ history: structuredClone(history), stopReason: answered?.stopReason });
  };
  return told;
}

describe("runChapterCli", () => {
  describe("one prompt", () => {
    it("runs the prompt once on a fresh history and exits 0 on a final answer", async () => {
      const { chapter, histories } = recordingChapter(answering());
      const { io, out } = fakeIo();
      expect(await runChapterCli(chapter, ["--offline", "list", "files"], io)).toBe(0);
      expect(histories).toEqual([[{ role: "user", content: "list files" }]]);
      // offline, the counts are the scripted model's estimates, and the summary (drawn on `end`) says so
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
      expect(lines.at(-2)).toMatch(/^── max_turns/);
      expect(out().endsWith("\n")).toBe(true);
    });

    it("prints the JSON line after what afterRun says (where the trace is), so it stays the last line", async () => {
      const { chapter, session } = recordingChapter(async () => result("final_answer"));
      const { io, out } = fakeIo();
      let view: CliStart["view"] | undefined;
      const start = chapter.start;
      chapter.start = (cli) => {
        view = cli.view;
        return start(cli);
      };
      session.afterRun = () => view?.note("trace t1 → /tmp/t1.jsonl");
      expect(await runChapterCli(chapter, ["--json", "go"], io)).toBe(0);
      const lines = out().trimEnd().split("\n");
      expect(lines.at(-2)).toBe("trace t1 → /tmp/t1.jsonl");
      expect(JSON.parse(lines.at(-1)!)).toEqual(result("final_answer"));
    });

    it("prints no JSON without --json, nor after a run that failed", async () => {
      const { chapter } = recordingChapter(async () => result("final_answer"));
      const { io, out } = fakeIo();
      await runChapterCli(chapter, ["go"], io);
      expect(out()).not.toContain('"stopReason"');
      const failing = recordingChapter(async () => {
        throw new Error("boom");
      });
      const second = fakeIo();
      expect(await runChapterCli(failing.chapter, ["--json", "go"], second.io)).toBe(1);
      expect(second.out()).not.toContain('"stopReason"');
    });

    it("gives start the options, connect the model, and the run the history and a live signal", async () => {
      const { chapter, starts, signals } = recordingChapter(async (_history, { model }) =>
        result("final_answer", model),
      );
      const { io, out } = fakeIo();
      await runChapterCli(
        chapter,
        ["--json", "--max-turns", "3", "--model", "claude-test", "--bash-timeout", "5", "go"],
        io,
      );
      expect(starts).toHaveLength(1);
      expect(starts[0].options).toMatchObject({ maxTurns: 3, bashTimeoutSeconds: 5, cwd, prompt: "go" });
      expect(starts[0].io).toBe(io);
      expect(JSON.parse(out().trimEnd().split("\n").at(-1)!).finalText).toBe("claude-test");
      expect(signals).toHaveLength(1);
      expect(signals[0].aborted).toBe(false);
    });

    it("talks to the scripted model with --offline, and says so once on stderr", async () => {
      const { chapter } = recordingChapter(askingTheModel);
      const { io, out, err } = fakeIo();
      expect(await runChapterCli(chapter, ["--offline", "--json", "Write me a poem."], io)).toBe(0);
      expect(err()).toMatch(/^Using the offline scripted model \(--offline was given\)/);
      expect(err().trimEnd().split("\n")).toHaveLength(1);
      expect(JSON.parse(out().trimEnd().split("\n").at(-1)!).finalText).toMatch(/scripted model/);
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

    it("prints the start line of a connection the chapter chose itself, and names its endpoint in an error", async () => {
      const chapter: ChapterCli<string> = {
        command: "s00",
        summary: "a chapter that connects on its own",
        start(cli) {
          cli.use({
            model: "gpt-test",
            kind: "api",
            baseURL: "http://127.0.0.1:9",
            keySource: "OPENAI_API_KEY from the shell",
            notice: "Using http://127.0.0.1:9 (gpt-test) with OPENAI_API_KEY from the shell",
          });
          return {
            run: async () => {
              const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
              throw new APIConnectionError({ cause: refused });
            },
          };
        },
      };
      const { io, err } = fakeIo();
      expect(await runChapterCli(chapter, ["go"], io)).toBe(1);
      expect(err().split("\n")).toEqual([
        "Using http://127.0.0.1:9 (gpt-test) with OPENAI_API_KEY from the shell",
        "s00: error: could not reach http://127.0.0.1:9: connection refused: nothing listens on that port (ECONNREFUSED) (after retries)",
        "",
      ]);
    });

    it("labels the summary's tokens as estimates only when the scripted model answers", async () => {
      const chapter = (kind: "api" | "scripted"): ChapterCli<string> => ({
        command: "s00",
        summary: "a chapter",
        start(cli) {
          cli.use({ model: "m", kind, notice: `Using ${kind}` });
          return {
            run: async () => {
              cli.view.show(endOf(result("final_answer")));
              return result("final_answer");
            },
          };
        },
      });
      const api = fakeIo();
      await runChapterCli(chapter("api"), ["go"], api.io);
      expect(api.out()).toContain("· 1 in / 2 out tokens\n");
      const scripted = fakeIo();
      await runChapterCli(chapter("scripted"), ["go"], scripted.io);
      expect(scripted.out()).toContain("· ~1 in / ~2 out tokens (estimated by the scripted model)\n");
    });

    it("calls afterRun with the history and the result", async () => {
      const { chapter, session } = recordingChapter(async (history) => {
        appendAssistantTurn(history, textTurn("cut"));
        return result("max_tokens");
      });
      const told = recordAfterRun(session);
      await runChapterCli(chapter, ["go"], fakeIo().io);
      expect(told).toEqual([
        {
          history: [
            { role: "user", content: "go" },
            { role: "assistant", content: [{ type: "text", text: "cut" }] },
          ],
          stopReason: "max_tokens",
        },
      ]);
    });

    it("reads a line starting with a slash as the prompt, not a command, in one-shot mode", async () => {
      const { chapter, session, histories } = recordingChapter(answering());
      const commanded: string[] = [];
      session.commands = [{ name: "tmp", help: "", run: async (args) => void commanded.push(args) }];
      expect(await runChapterCli(chapter, ["/tmp/notes.txt"], fakeIo().io)).toBe(0);
      expect(commanded).toEqual([]);
      expect(histories).toEqual([[{ role: "user", content: "/tmp/notes.txt" }]]);
    });
  });

  describe("usage", () => {
    it("prints the help and exits 0 without starting", async () => {
      const { chapter, starts } = recordingChapter(async () => result("final_answer"));
      const { io, out, err } = fakeIo();
      expect(await runChapterCli(chapter, ["--help"], io)).toBe(0);
      expect(out()).toMatch(/^s00: a chapter for tests\n/);
      expect(out()).toContain("usage: pnpm s00 [options] [prompt]");
      expect(err()).toBe("");
      expect(starts).toEqual([]);
    });

    it("lists the chapter's flags, REPL commands and environment in its help", async () => {
      const { chapter } = recordingChapter(async () => result("final_answer"));
      chapter.flags = [{ name: "trace", type: "string", optionalValue: true, help: "--trace[=ID]        save it" }];
      chapter.commandHelp = ["/compact            summarise now"];
      chapter.environment = ["OPENAI_API_KEY for the OpenAI formats"];
      const { io, out } = fakeIo();
      expect(await runChapterCli(chapter, ["--help"], io)).toBe(0);
      expect(out()).toContain("\n  --trace[=ID]        save it\n");
      expect(out()).toContain("\n             OPENAI_API_KEY for the OpenAI formats\n");
      expect(out()).toMatch(/\nin the REPL:\n {2}\/compact {12}summarise now\n$/);
    });

    it("refuses a bad option with one line on stderr and exit 1, without starting", async () => {
      const { chapter, starts } = recordingChapter(async () => result("final_answer"));
      const { io, out, err } = fakeIo();
      expect(await runChapterCli(chapter, ["--max-turns", "zero", "go"], io)).toBe(1);
      expect(err()).toBe("s00: error: --max-turns expects a whole number of at least 1, got zero\n");
      expect(out()).toBe("");
      expect(starts).toEqual([]);
    });

    it.each([[[""]], [["   "]]])(
      "refuses an empty prompt %j with one line, rather than start the REPL",
      async (argv) => {
        const { chapter, starts, histories } = recordingChapter(async () => result("final_answer"));
        const { io, out, err } = fakeIo("a prompt the REPL would read\n");
        expect(await runChapterCli(chapter, argv, io)).toBe(1);
        expect(err()).toBe("s00: error: the prompt is empty (to start the REPL, give no prompt at all)\n");
        expect(out()).toBe("");
        expect(starts).toEqual([]);
        expect(histories).toEqual([]);
      },
    );

    it("refuses an unknown option the same way", async () => {
      const { chapter } = recordingChapter(async () => result("final_answer"));
      const { io, err } = fakeIo();
      expect(await runChapterCli(chapter, ["--frobnicate"], io)).toBe(1);
      expect(err()).toMatch(/^s00: error: .*--frobnicate.*\(see --help\)\n$/);
    });

    it("gives the chapter's own flags to start", async () => {
      const { chapter, starts } = recordingChapter(async () => result("final_answer"));
      chapter.flags = [{ name: "allow", type: "string", multiple: true, help: "--allow RULE" }];
      await runChapterCli(chapter, ["--allow", "Bash(ls)", "--allow", "Read", "go"], fakeIo().io);
      expect(starts[0].options.extra).toEqual({ allow: ["Bash(ls)", "Read"] });
    });
  });

  describe("start", () => {
    it("turns a start that throws into one line and exit 1, before any prompt", async () => {
      const chapter: ChapterCli<string> = {
        command: "s00",
        summary: "a chapter whose start fails",
        start() {
          throw new Error("--allow: Bash(ls is not a rule (a parenthesis is not closed)\n    at parseRule");
        },
      };
      const repl = fakeIo("never read\n");
      expect(await runChapterCli(chapter, [], repl.io)).toBe(1);
      expect(repl.err()).toBe("s00: error: --allow: Bash(ls is not a rule (a parenthesis is not closed)\n");
      expect(repl.out()).toBe(""); // not even the REPL's prompt
      const oneShot = fakeIo();
      expect(await runChapterCli(chapter, ["go"], oneShot.io)).toBe(1);
      expect(oneShot.err()).toBe("s00: error: --allow: Bash(ls is not a rule (a parenthesis is not closed)\n");
      expect(oneShot.out()).toBe("");
    });

    it("turns a start that rejects into one line too, with the stack when DEBUG is set", async () => {
      const chapter: ChapterCli<string> = {
        command: "s00",
        summary: "a chapter whose start fails",
        start: async () => {
          throw new Error("the session is in use by process 4242");
        },
      };
      const { io, err } = fakeIo("", { DEBUG: "1" });
      expect(await runChapterCli(chapter, ["go"], io)).toBe(1);
      expect(err()).toMatch(/^s00: error: the session is in use by process 4242\nError: the session is in use/);
      expect(err()).toMatch(/\n\s+at /);
    });

    it("says a chapter's line on stderr after its name", async () => {
      const chapter: ChapterCli<string> = {
        command: "s07",
        summary: "a chapter that says something",
        start(cli) {
          cli.say("resumed session 5b0f3c1e (3 messages)");
          return { run: async () => result("final_answer") };
        },
      };
      const { io, err } = fakeIo();
      expect(await runChapterCli(chapter, ["go"], io)).toBe(0);
      expect(err()).toBe("s07: resumed session 5b0f3c1e (3 messages)\n");
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

    it("turns an afterRun that throws into one line and exit 1, and the REPL goes on", async () => {
      const { chapter, session, histories } = recordingChapter(answering());
      session.afterRun = () => {
        throw new Error("the disk is full");
      };
      const oneShot = fakeIo();
      expect(await runChapterCli(chapter, ["--offline", "--json", "go"], oneShot.io)).toBe(1);
      expect(oneShot.err()).toContain("s00: error: the disk is full\n");
      const repl = fakeIo("one\ntwo\n");
      expect(await runChapterCli(chapter, ["--offline"], repl.io)).toBe(0);
      expect(repl.err().match(/the disk is full/g)).toHaveLength(2);
      expect(histories).toHaveLength(3);
    });

    it("says a close that throws in one line, and keeps the exit status", async () => {
      const { chapter, session } = recordingChapter(answering("max_turns"));
      session.close = () => {
        throw new Error("the lock file is gone");
      };
      const { io, err } = fakeIo();
      expect(await runChapterCli(chapter, ["--offline", "go"], io)).toBe(2);
      expect(err()).toContain("s00: error: the lock file is gone\n");
    });

    it("removes its SIGINT handler when it returns, after an answer or an error", async () => {
      const before = process.listenerCount("SIGINT");
      await runChapterCli(recordingChapter(async () => result("final_answer")).chapter, ["go"], fakeIo().io);
      const failing = recordingChapter(async () => {
        throw new Error("boom");
      });
      await runChapterCli(failing.chapter, ["go"], fakeIo().io);
      const refused: ChapterCli<string> = {
        command: "s00",
        summary: "a start that fails",
        start: () => {
          throw new Error("no");
        },
      };
      await runChapterCli(refused, ["go"], fakeIo().io);
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
      const { chapter, session, histories } = recordingChapter(answering());
      const { io, out } = fakeIo("one\ntwo\n");
      // the input ends, and the REPL's line reader closes with it, before the REPL prints its first prompt
      const start = chapter.start;
      chapter.start = async (cli) => {
        await once(io.stdin, "end");
        return start(cli);
      };
      const told = recordAfterRun(session);
      expect(await runChapterCli(chapter, [], io)).toBe(0);
      expect(histories).toHaveLength(2);
      expect(told.map(({ history }) => history.length)).toEqual([2, 4]);
      expect(out().match(/s00 >> /g)).toHaveLength(3);
      expect(out()).toMatch(/s00 >> \n$/);
    });

    it("exits 0 on an empty input", async () => {
      const { chapter, histories } = recordingChapter(answering());
      expect(await runChapterCli(chapter, [], fakeIo("").io)).toBe(0);
      expect(histories).toEqual([]);
    });

    it("says once that it uses the scripted model, however many prompts", async () => {
      const { chapter, starts } = recordingChapter(answering());
      const { io, err } = fakeIo("one\ntwo\nthree\n");
      await runChapterCli(chapter, ["--offline"], io);
      expect(err().match(/offline scripted model/g)).toHaveLength(1);
      expect(starts).toHaveLength(1); // the session is built once
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
      const answer = answering();
      const { chapter, histories } = recordingChapter(async (history, args) => {
        calls++;
        if (calls === 1) throw new Error("the model is down");
        return answer(history, args);
      });
      const { io, err } = fakeIo("first\nsecond\nthird\n");
      expect(await runChapterCli(chapter, ["--offline"], io)).toBe(0);
      expect(err()).toContain("s00: error: the model is down\n");
      expect(histories).toHaveLength(3);
      for (const history of histories) expect(historyProblems(history)).toEqual([]);
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
      const { chapter, histories } = recordingChapter(askingTheModel);
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

describe("CliStart.ask", () => {
  /** A chapter whose run asks one question, records the answer, and answers with it. */
  function askingChapter(question = "Run `rm -rf build`?", choices?: ("yes" | "no" | "always")[]) {
    const answers: string[] = [];
    const prompts: string[] = [];
    const session: ChapterSession<string> = { run: () => Promise.reject(new Error("not started")) };
    const chapter: ChapterCli<string> = {
      command: "s00",
      summary: "a chapter that asks",
      interruptible: true,
      start(cli) {
        cli.connect(() => new ScriptedModel({ brain: demoBrain }));
        session.run = async (history) => {
          prompts.push(String(history.at(-1)?.content));
          const answer = await cli.ask(question, choices);
          answers.push(answer);
          appendAssistantTurn(history, textTurn(`you said ${answer}`));
          cli.view.show(endOf(result("final_answer", answer)));
          return result("final_answer", answer);
        };
        return session;
      },
    };
    return { chapter, session, answers, prompts };
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
    const { chapter, answers, prompts } = askingChapter();
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

  it("answers no to a question asked after Ctrl-D, and ends the REPL after that run", async () => {
    const { chapter, session, answers } = askingChapter();
    const told = recordAfterRun(session);
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, ["--offline"], term.io);
    await until("the REPL prompt", () => term.out().includes("s00 >> "));
    // a prompt, then Ctrl-D at once: the line reader is closed before the run asks its question
    term.type("go\r\x04");
    expect(await exited).toBe(0);
    expect(answers).toEqual(["no"]);
    expect(told.map(({ history }) => history)).toEqual([
      [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "text", text: "you said no" }] },
      ],
    ]);
  });

  it("answers no when Ctrl-D ends the input at a question start asks, and the REPL ends", async () => {
    const { chapter, histories } = recordingChapter(answering());
    const answers: string[] = [];
    const start = chapter.start;
    chapter.start = async (cli) => {
      answers.push(await cli.ask("resume 1 (5b0f3c1e)?"));
      return start(cli);
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
      start: (cli) => ({
        run: async (history) => {
          // two calls checked at once, each asking: the second question waits for the first answer
          const both = await Promise.all([cli.ask("Read a.txt?"), cli.ask("Read b.txt?")]);
          answers.push(...both);
          appendAssistantTurn(history, textTurn("ok"));
          return result("final_answer");
        },
      }),
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
      start: (cli) => ({
        run: async (history) => {
          answers.push(await cli.ask(questions[answers.length], ["yes", "no", "always"]));
          appendAssistantTurn(history, textTurn("ok"));
          return result("final_answer");
        },
      }),
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

describe("Ctrl-C", () => {
  /** A chapter whose run waits until its signal aborts (or `release` is called), then answers. */
  function waitingChapter(interruptible: boolean) {
    const runs: { signal: AbortSignal }[] = [];
    let release = () => {};
    const closed: number[] = [];
    const told: (string | undefined)[] = [];
    const chapter: ChapterCli<string> = {
      command: "s00",
      summary: "a chapter whose run waits",
      interruptible,
      exitCodes: { aborted: 130 },
      start: (cli) => ({
        run: async (history, signal) => {
          runs.push({ signal });
          await new Promise<void>((resolve) => {
            release = resolve;
            signal.addEventListener("abort", () => resolve(), { once: true });
          });
          const stopReason = signal.aborted ? "aborted" : "final_answer";
          appendAssistantTurn(history, textTurn(stopReason));
          cli.view.show(endOf(result(stopReason)));
          return result(stopReason);
        },
        afterRun: (_history, answered) => void told.push(answered?.stopReason),
        close: () => void closed.push(runs.length),
      }),
    };
    return { chapter, runs, closed, told, release: () => release() };
  }

  it("aborts the run at the first Ctrl-C, says how to exit, and the REPL goes on", async () => {
    const { chapter, runs, closed, told } = waitingChapter(true);
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, [], term.io);
    await until("the REPL prompt", () => term.out().includes("s00 >> "));
    term.type("wait\r");
    await until("the run", () => runs.length === 1);
    term.type("\x03");
    await until("the run's end", () => told.length === 1);
    expect(runs[0].signal.aborted).toBe(true);
    expect(term.out()).toContain("(interrupted; press Ctrl-C again to exit)\n");
    expect(term.out()).toContain("── aborted");
    expect(term.exits).toEqual([]);
    // the next prompt runs with a fresh signal
    term.type("again\r");
    await until("the second run", () => runs.length === 2);
    expect(runs[1].signal.aborted).toBe(false);
    term.type("\x03");
    await until("the second run's end", () => told.length === 2);
    term.stdin.end();
    expect(await exited).toBe(0);
    expect(told).toEqual(["aborted", "aborted"]);
    expect(closed).toEqual([2]); // once, as the CLI ended
    expect(term.exits).toEqual([]);
  });

  it("exits 130 at a second Ctrl-C in the same run, after closing the session", async () => {
    const { chapter, runs, closed, told, release } = waitingChapter(true);
    // a run that does not stop at once: it goes on after the first Ctrl-C
    const start = chapter.start;
    chapter.start = async (cli) => {
      const session = await start(cli);
      const run = session.run;
      session.run = (history) => run(history, new AbortController().signal);
      return session;
    };
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, [], term.io);
    await until("the REPL prompt", () => term.out().includes("s00 >> "));
    term.type("wait\r");
    await until("the run", () => runs.length === 1);
    term.type("\x03");
    await until("the note", () => term.out().includes("press Ctrl-C again to exit"));
    expect(term.exits).toEqual([]);
    term.type("\x03");
    await until("the exit", () => term.exits.length === 1);
    expect(term.exits).toEqual([130]);
    expect(closed).toEqual([1]);
    release();
    term.stdin.end();
    await exited;
    expect(told).toEqual([]); // the run that ended after the exit is not followed up
    expect(closed).toEqual([1]); // closed once
  });

  it("exits 130 at once when the chapter cannot be interrupted, closing the session once", async () => {
    const { chapter, runs, closed, told, release } = waitingChapter(false);
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, [], term.io);
    await until("the REPL prompt", () => term.out().includes("s00 >> "));
    term.type("go\r");
    await until("the run", () => runs.length === 1);
    term.type("\x03");
    await until("the exit", () => term.exits.length === 1);
    expect(term.exits).toEqual([130]);
    expect(runs[0].signal.aborted).toBe(false);
    expect(term.out()).not.toContain("press Ctrl-C again");
    expect(closed).toEqual([1]);
    release();
    term.stdin.end();
    await exited;
    expect(told).toEqual([]);
    expect(closed).toEqual([1]);
  });

  it("exits 130 at the prompt, when no run is in progress", async () => {
    const { chapter, closed } = waitingChapter(true);
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, [], term.io);
    await until("the REPL prompt", () => term.out().includes("s00 >> "));
    term.type("\x03");
    await until("the exit", () => term.exits.length === 1);
    expect(term.exits).toEqual([130]);
    expect(closed).toEqual([0]);
    term.stdin.end();
    await exited;
  });

  it("exits 130 from a question asked by start, before the session exists", async () => {
    const { chapter, closed } = waitingChapter(true);
    const start = chapter.start;
    chapter.start = async (cli) => {
      await cli.ask("Trust this project's hooks?");
      return start(cli);
    };
    const term = fakeTerminal();
    const exited = runChapterCli(chapter, [], term.io);
    await until("the question", () => term.out().includes("Trust this project's hooks? [y/n] "));
    term.type("\x03");
    await until("the exit", () => term.exits.length === 1);
    expect(term.exits).toEqual([130]);
    term.stdin.end();
    await exited;
    expect(closed).toEqual([]); // nothing was started, so there is nothing to close
  });
});

describe("the session", () => {
  const earlier: MessageParam[] = [
    { role: "user", content: "earlier" },
    { role: "assistant", content: [{ type: "text", text: "an earlier answer" }] },
  ];

  it("continues the session's history with the first prompt", async () => {
    const { chapter, session, histories } = recordingChapter(answering());
    session.history = structuredClone(earlier);
    expect(await runChapterCli(chapter, ["--offline"], fakeIo("go on\n").io)).toBe(0);
    expect(histories).toEqual([[...earlier, { role: "user", content: "go on" }]]);
  });

  it("refuses a session history the API would refuse, in one line, before any prompt", async () => {
    const { chapter, session, histories } = recordingChapter(answering());
    session.history = [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] },
    ];
    const told = recordAfterRun(session);
    let closed = 0;
    session.close = () => closed++;
    const { io, err } = fakeIo();
    expect(await runChapterCli(chapter, ["--offline", "next"], io)).toBe(1);
    expect(err().trimEnd().split("\n").at(-1)).toBe(
      "s00: error: the loaded history is not one the API accepts: messages.1: `tool_use` ids were found without " +
        "`tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding " +
        "`tool_result` block in the next message.",
    );
    expect(histories).toEqual([]);
    expect(told).toEqual([]);
    expect(closed).toBe(1); // what start took is released
  });

  it("refuses a session history that is not a list of messages", async () => {
    const { chapter, session, histories } = recordingChapter(answering());
    session.history = { messages: [] } as unknown as MessageParam[];
    const { io, err } = fakeIo();
    expect(await runChapterCli(chapter, ["--offline", "go"], io)).toBe(1);
    expect(err()).toContain(
      "s00: error: the loaded history is not one the API accepts: the session gave no list of messages\n",
    );
    expect(histories).toEqual([]);
  });

  it("calls afterRun after each run, and not again as the REPL ends", async () => {
    const { chapter, session, histories } = recordingChapter(answering());
    const told = recordAfterRun(session);
    expect(await runChapterCli(chapter, ["--offline"], fakeIo("one\ntwo\nq\n").io)).toBe(0);
    expect(told).toHaveLength(2);
    expect(told[0].history).toEqual([
      ...histories[0],
      { role: "assistant", content: [{ type: "text", text: "answer 1" }] },
    ]);
    expect(told[1].history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("calls afterRun after a one-shot run, and after a run that failed (without a result)", async () => {
    const once = recordingChapter(answering());
    const onceTold = recordAfterRun(once.session);
    expect(await runChapterCli(once.chapter, ["--offline", "go"], fakeIo().io)).toBe(0);
    expect(onceTold.map((t) => t.stopReason)).toEqual(["final_answer"]);
    const failing = recordingChapter(async () => {
      throw new Error("the model is down");
    });
    const failingTold = recordAfterRun(failing.session);
    expect(await runChapterCli(failing.chapter, ["--offline", "go"], fakeIo().io)).toBe(1);
    expect(failingTold).toEqual([{ history: [{ role: "user", content: "go" }], stopReason: undefined }]);
  });

  it("calls no afterRun when no prompt ran, and closes the session once", async () => {
    const { chapter, session } = recordingChapter(answering());
    const told = recordAfterRun(session);
    let closed = 0;
    session.close = () => closed++;
    expect(await runChapterCli(chapter, ["--offline"], fakeIo("").io)).toBe(0);
    expect(told).toEqual([]);
    expect(closed).toBe(1);
  });

  it("closes the session once after a one-shot run, answered or failed", async () => {
    for (const answer of [answering(), () => Promise.reject(new Error("down"))]) {
      const { chapter, session } = recordingChapter(answer);
      let closed = 0;
      session.close = () => closed++;
      await runChapterCli(chapter, ["--offline", "go"], fakeIo().io);
      expect(closed).toBe(1);
    }
  });
});
