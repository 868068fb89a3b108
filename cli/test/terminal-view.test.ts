import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { preview, SHOW_ELAPSED_AFTER_MS, summarise, TerminalView } from "../src/terminal-view.ts";

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
