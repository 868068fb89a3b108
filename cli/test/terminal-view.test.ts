import { PassThrough } from "node:stream";
import type { Message } from "@anthropic-ai/sdk/resources/messages";
import { type AgentLoopResult, AgentTurn, type ToolCall } from "@harness/shared";
import { afterEach, describe, expect, it, vi } from "vitest";
import { preview, SHOW_ELAPSED_AFTER_MS, type ShownEvent, summarise, TerminalView } from "../src/terminal-view.ts";

function streams(tty = false) {
  const stdout = Object.assign(new PassThrough(), { isTTY: tty });
  const stderr = Object.assign(new PassThrough(), { isTTY: tty });
  let out = "";
  let err = "";
  stdout.on("data", (c) => {
    out += c;
  });
  stderr.on("data", (c) => {
    err += c;
  });
  return { stdout, stderr, out: () => out, err: () => err };
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe("TerminalView", () => {
  it("prints plain lines on a pipe: the turn, the tool call, its result, the summary", () => {
    const s = streams();
    const view = new TerminalView(s);
    view.modelCall(1);
    view.text("Let me look.");
    view.toolCall({ id: "t", name: "bash", input: { command: "ls -la" } });
    view.toolResult({ content: "a\nb\n[exit code 0]", isError: false });
    view.summary({
      stopReason: "final_answer",
      turns: 2,
      toolCalls: 1,
      finalText: "",
      providerStopReason: "end_turn",
      usage: { inputTokens: 812, outputTokens: 64 },
    });
    expect(s.out()).toBe(
      "[turn 1]\nLet me look.\n  bash: ls -la\n    a\n    b\n    [exit code 0]\n" +
        "── final_answer · 2 turns · 1 tool call · 812 in / 64 out tokens\n",
    );
    expect(s.err()).toBe("");
  });

  it("prints nothing for an empty text", () => {
    const s = streams();
    new TerminalView(s).text("");
    expect(s.out()).toBe("");
  });

  it("ends a streamed line before the next line", () => {
    const s = streams();
    const view = new TerminalView(s);
    view.textDelta("Hel");
    view.textDelta("lo");
    view.note("(interrupted)");
    view.endLine();
    expect(s.out()).toBe("Hello\n(interrupted)\n");
  });

  it("adds no newline after a stream that ended its line", () => {
    const s = streams();
    const view = new TerminalView(s);
    view.textDelta("done\n");
    view.endLine();
    expect(s.out()).toBe("done\n");
  });

  it("does not paint on a TTY when NO_COLOR is set", () => {
    vi.stubEnv("NO_COLOR", "1");
    const s = streams(true);
    new TerminalView(s).note("careful");
    expect(s.out()).toBe("careful\n");
  });

  it("spins on a TTY's stderr until the model answers, then clears the spinner", () => {
    vi.useFakeTimers();
    const s = streams(true);
    const view = new TerminalView(s);
    view.modelCall(1);
    vi.advanceTimersByTime(250);
    const frames = s.err().split("\r").filter(Boolean).length;
    expect(frames).toBeGreaterThanOrEqual(3);
    view.modelAnswered();
    expect(s.err().endsWith("\r\x1b[2K")).toBe(true);
    const after = s.err();
    vi.advanceTimersByTime(1000);
    expect(s.err()).toBe(after);
  });

  it("counts the seconds of a long wait on the spinner, after SHOW_ELAPSED_AFTER_MS", () => {
    vi.useFakeTimers();
    const s = streams(true);
    const view = new TerminalView(s);
    view.modelCall(1);
    vi.advanceTimersByTime(SHOW_ELAPSED_AFTER_MS - 100);
    expect(s.err()).not.toMatch(/\d s\)/);
    vi.advanceTimersByTime(200);
    expect(s.err().split("\r").at(-1)).toMatch(/waiting for the model \(3 s\)$/);
    vi.advanceTimersByTime(60_000);
    expect(s.err().split("\r").at(-1)).toMatch(/waiting for the model \(63 s\)$/);
    view.modelAnswered();
  });

  it("labels the token counts as estimates when the scripted model made them", () => {
    const s = streams();
    const result = {
      stopReason: "final_answer",
      turns: 2,
      toolCalls: 1,
      finalText: "",
      providerStopReason: "end_turn",
      usage: { inputTokens: 812, outputTokens: 64 },
    };
    new TerminalView(s, { estimatedTokens: true }).summary(result);
    new TerminalView(s, { estimatedTokens: false }).summary(result);
    expect(s.out()).toBe(
      "── final_answer · 2 turns · 1 tool call · ~812 in / ~64 out tokens (estimated by the scripted model)\n" +
        "── final_answer · 2 turns · 1 tool call · 812 in / 64 out tokens\n",
    );
  });

  it("does not spin on a pipe", () => {
    vi.useFakeTimers();
    const s = streams(false);
    new TerminalView(s).modelCall(1);
    vi.advanceTimersByTime(1000);
    expect(s.err()).toBe("");
  });
});

/** A turn read from a response with this text (and these tool calls). */
function turnOf(text: string, calls: ToolCall[] = []): AgentTurn {
  const content = [
    ...(text ? [{ type: "text", text }] : []),
    ...calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.input })),
  ];
  const stop_reason = calls.length > 0 ? "tool_use" : "end_turn";
  return AgentTurn.fromResponse({ content, stop_reason, usage: { input_tokens: 1, output_tokens: 1 } } as Message);
}

const RESULT: AgentLoopResult<string> = {
  stopReason: "final_answer",
  turns: 2,
  toolCalls: 2,
  finalText: "Both files are short.",
  providerStopReason: "end_turn",
  usage: { inputTokens: 812, outputTokens: 64 },
};

const readA: ToolCall = { id: "t1", name: "read_file", input: { path: "a.txt" } };
const readB: ToolCall = { id: "t2", name: "read_file", input: { path: "b.txt" } };
const ok = (content: string) => ({ content, isError: false });

/** One event the view draws, typed as such. */
const event = (shownEvent: ShownEvent): ShownEvent => shownEvent;

/** Feed `events` to a view on a pipe; what it printed. */
function shown(events: readonly ShownEvent[] | readonly { type: string }[], options = {}) {
  const s = streams();
  const view = new TerminalView(s, options);
  for (const event of events) view.show(event);
  return s;
}

describe("TerminalView.show", () => {
  it("draws a run from its events: turn header, text, tool call, result, answer, summary", () => {
    const call: ToolCall = { id: "t", name: "bash", input: { command: "ls" } };
    const s = shown([
      { type: "model_call", turnNumber: 1 },
      { type: "turn", turn: turnOf("Let me look.", [call]) },
      { type: "tool_call", call },
      { type: "tool_result", call, result: ok("a\nb\n[exit code 0]") },
      { type: "model_call", turnNumber: 2 },
      { type: "turn", turn: turnOf("Two files.") },
      { type: "end", result: { ...RESULT, toolCalls: 1 } },
    ]);
    expect(s.out()).toBe(
      "[turn 1]\nLet me look.\n  bash: ls\n    a\n    b\n    [exit code 0]\n" +
        "[turn 2]\nTwo files.\n" +
        "── final_answer · 2 turns · 1 tool call · 812 in / 64 out tokens\n",
    );
    expect(s.err()).toBe("");
  });

  it("prints the summary on end, with the token counts labelled as estimates when the view is told so", () => {
    expect(shown([{ type: "end", result: RESULT }], { estimatedTokens: true }).out()).toBe(
      "── final_answer · 2 turns · 2 tool calls · ~812 in / ~64 out tokens (estimated by the scripted model)\n",
    );
    const view = new TerminalView(streams());
    view.estimatedTokens = true; // the CLI sets it once it knows which model answers
    expect(view.estimatedTokens).toBe(true);
  });

  it("prints streamed text as it arrives and not again when the turn is read", () => {
    const s = shown([
      { type: "model_call", turnNumber: 1 },
      { type: "stream_start" },
      { type: "text", text: "Hel" },
      { type: "text", text: "lo." },
      { type: "turn", turn: turnOf("Hello.") },
      { type: "end", result: { ...RESULT, turns: 1, toolCalls: 0 } },
    ]);
    expect(s.out()).toBe("[turn 1]\nHello.\n── final_answer · 1 turn · 0 tool calls · 812 in / 64 out tokens\n");
    expect(s.out().split("Hello.")).toHaveLength(2);
  });

  it("says a turn is sent again when its model call comes twice (a refused call, resent), and not across runs", () => {
    const s = shown([
      { type: "model_call", turnNumber: 1 },
      { type: "model_call", turnNumber: 1 },
      { type: "turn", turn: turnOf("Fits now.") },
      { type: "end", result: { ...RESULT, turns: 1, toolCalls: 0 } },
      { type: "model_call", turnNumber: 1 },
    ]);
    expect(
      s
        .out()
        .split("\n")
        .filter((line) => line.startsWith("[turn")),
    ).toEqual(["[turn 1]", "[turn 1, sent again]", "[turn 1]"]);
  });

  it("prints a later turn that did not stream whole, though an earlier one streamed", () => {
    const s = shown([
      { type: "model_call", turnNumber: 1 },
      { type: "text", text: "Streamed." },
      { type: "turn", turn: turnOf("Streamed.") },
      { type: "model_call", turnNumber: 2 },
      { type: "turn", turn: turnOf("Whole.") },
    ]);
    expect(s.out()).toBe("[turn 1]\nStreamed.\n[turn 2]\nWhole.\n");
  });

  it("labels each result with its call while calls run at once, as they land in any order", () => {
    const s = shown([
      { type: "tool_call", call: readA },
      { type: "tool_call", call: readB },
      { type: "tool_result", call: readB, result: ok("bbb") },
      { type: "tool_result", call: readA, result: ok("aaa") },
    ]);
    expect(s.out()).toBe(
      '  read_file: {"path":"a.txt"}\n  read_file: {"path":"b.txt"}\n' +
        '    ← read_file: {"path":"b.txt"}\n    bbb\n' +
        '    ← read_file: {"path":"a.txt"}\n    aaa\n',
    );
  });

  it("labels no result of calls run one by one, even after a batch that ran at once", () => {
    const s = shown([
      { type: "tool_call", call: readA },
      { type: "tool_call", call: readB },
      { type: "tool_result", call: readA, result: ok("aaa") },
      { type: "tool_result", call: readB, result: ok("bbb") },
      { type: "tool_call", call: readA },
      { type: "tool_result", call: readA, result: ok("again") },
    ]);
    expect(s.out().split("\n").slice(-3)).toEqual(['  read_file: {"path":"a.txt"}', "    again", ""]);
  });

  it("forgets a call left running by a run that threw, at the next model call", () => {
    const s = shown([
      { type: "tool_call", call: readA },
      { type: "model_call", turnNumber: 1 },
      { type: "tool_call", call: readB },
      { type: "tool_result", call: readB, result: ok("bbb") },
    ]);
    expect(s.out()).not.toContain("←");
  });

  it("shows an error result in its own words", () => {
    const call: ToolCall = { id: "t", name: "bash", input: { command: "false" } };
    const s = shown([
      { type: "tool_call", call },
      { type: "tool_result", call, result: { content: "(no output)\n[exit code 1]", isError: true } },
    ]);
    expect(s.out()).toBe("  bash: false\n    (no output)\n    [exit code 1]\n");
  });

  it("prints a notice as a line naming who tells it, after the line a stream left open", () => {
    const s = shown([
      { type: "text", text: "Half a line" },
      { type: "notice", from: "hook", text: "PostToolUse: formatted a.ts" },
    ]);
    expect(s.out()).toBe("Half a line\nhook: PostToolUse: formatted a.ts\n");
  });

  it("ends a streamed line before a tool call", () => {
    const call: ToolCall = { id: "t", name: "bash", input: { command: "ls" } };
    const s = shown([
      { type: "text", text: "Looking" },
      { type: "tool_call", call },
    ]);
    expect(s.out()).toBe("Looking\n  bash: ls\n");
  });

  it("ignores the events it does not draw (a message, the context, a model error)", () => {
    // later chapters' events, as a fanOut of all the listeners hands them to the view too
    const others = [
      { type: "message", message: { role: "user", content: "hi" } },
      { type: "context", change: { kind: "cleared" }, messages: [] },
      { type: "model_error", error: new Error("boom") },
    ];
    const s = shown(others);
    expect(s.out()).toBe("");
    expect(s.err()).toBe("");
  });

  it("stops the spinner at the stream's first event, before any text", () => {
    vi.useFakeTimers();
    const s = streams(true);
    const view = new TerminalView(s);
    view.show(event({ type: "model_call", turnNumber: 1 }));
    vi.advanceTimersByTime(200);
    view.show(event({ type: "stream_start" }));
    expect(s.err().endsWith("\r\x1b[2K")).toBe(true);
    const after = s.err();
    vi.advanceTimersByTime(1000);
    expect(s.err()).toBe(after);
  });

  it("stops the spinner when a whole turn arrives", () => {
    vi.useFakeTimers();
    const s = streams(true);
    const view = new TerminalView(s);
    view.show(event({ type: "model_call", turnNumber: 1 }));
    vi.advanceTimersByTime(200);
    view.show(event({ type: "turn", turn: turnOf("Hi.") }));
    const after = s.err();
    expect(after.endsWith("\r\x1b[2K")).toBe(true);
    vi.advanceTimersByTime(1000);
    expect(s.err()).toBe(after);
  });
});

describe("summarise", () => {
  it("shows a bash command on one line", () => {
    expect(summarise({ id: "t", name: "bash", input: { command: "cat > a <<EOF\nhi\nEOF" } })).toBe(
      "cat > a <<EOF ⏎ hi ⏎ EOF",
    );
  });

  it("shows another tool's input as JSON", () => {
    expect(summarise({ id: "t", name: "read", input: { path: "a.ts" } })).toBe('{"path":"a.ts"}');
  });

  it("clips a long call to 100 characters", () => {
    const line = summarise({ id: "t", name: "bash", input: { command: "x".repeat(500) } });
    expect(line).toHaveLength(100);
    expect(line.endsWith("…")).toBe(true);
  });
});

describe("preview", () => {
  it("keeps the first four lines and counts the rest", () => {
    expect(preview("1\n2\n3\n4\n5\n6")).toEqual(["1", "2", "3", "4", "… (2 more lines)"]);
  });

  it("clips long lines", () => {
    const [line] = preview("y".repeat(500));
    expect(line).toHaveLength(120);
  });
});
