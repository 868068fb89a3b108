/**
 * What a learner sees while a loop runs: the turn number, each tool call with a short preview of
 * its result, the answer, and a summary line. Colour and a spinner on a TTY, plain lines on a
 * pipe. The loop knows nothing of this: the view is one listener on its events (`show`).
 */
import { styleText } from "node:util";
import type { AgentLoopResult, AgentTurn, ToolCall, ToolResult } from "@harness/shared";

type Style = Parameters<typeof styleText>[0];

/** Where the view writes. */
export interface ViewStreams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** How the view labels what it prints. */
export interface ViewOptions {
  /** The token counts are the scripted model's estimates, not a provider's counts. */
  estimatedTokens?: boolean;
}

/**
 * The events the view draws: s01's (a model call, its turn, each tool call and result, the end),
 * a streamed response's (its start, its text as it arrives) and a line for the user from a
 * mechanism (a hook, the context window). It ignores any other.
 */
export type ShownEvent =
  | { type: "model_call"; turnNumber: number }
  | { type: "turn"; turn: AgentTurn }
  | { type: "tool_call"; call: ToolCall }
  | { type: "tool_result"; call: ToolCall; result: ToolResult }
  | { type: "end"; result: AgentLoopResult<string> }
  | { type: "stream_start" }
  | { type: "text"; text: string }
  | { type: "notice"; from: string; text: string };

/** After this long, the spinner also shows how many seconds it has waited. */
export const SHOW_ELAPSED_AFTER_MS = 3000;

/** Prints a loop's progress. */
export class TerminalView {
  private spinner?: NodeJS.Timeout;
  private readonly color: boolean;
  private midLine = false;
  private streamed = false; // this turn's text was shown as it arrived
  private running = 0; // tool calls started and not yet finished
  private together = false; // a call of this batch ran beside another: label its result
  private lastTurn = 0; // the turn of the last model call this run: the same one again is a resend

  /**
   * Draw one event of a loop. A listener: hand it to the loop's `emit` (with `fanOut`, beside a
   * trace or a transcript). Calls that run at once finish in any order, so while more than one
   * runs, each result is labelled with its call.
   */
  readonly show = (event: { type: string }): void => {
    const shown = event as ShownEvent;
    switch (shown.type) {
      case "model_call":
        // a new turn: no call of the last batch is still running (a run that threw may have left one)
        this.streamed = false;
        this.running = 0;
        this.together = false;
        // the same turn again: the call was refused and is sent again (s08's window, after a compaction)
        this.modelCall(shown.turnNumber, shown.turnNumber === this.lastTurn);
        this.lastTurn = shown.turnNumber;
        break;
      case "stream_start":
        this.modelAnswered();
        break;
      case "text":
        this.streamed = true;
        this.textDelta(shown.text);
        break;
      case "turn":
        if (this.streamed) this.modelAnswered();
        else this.text(shown.turn.text);
        break;
      case "tool_call":
        this.running++;
        this.together ||= this.running > 1;
        this.toolCall(shown.call);
        break;
      case "tool_result":
        this.running--;
        this.toolResult(shown.result, this.together ? shown.call : undefined);
        if (this.running === 0) this.together = false;
        break;
      case "notice":
        this.note(`${shown.from}: ${shown.text}`);
        break;
      case "end":
        this.lastTurn = 0;
        this.summary(shown.result);
    }
  };

  /** The token counts are the scripted model's estimates (the CLI sets it once it knows). */
  estimatedTokens: boolean;

  constructor(
    private readonly streams: ViewStreams,
    options: ViewOptions = {},
  ) {
    this.estimatedTokens = options.estimatedTokens === true;
    this.color = streams.stdout.isTTY === true && !process.env.NO_COLOR;
  }

  /**
   * A model call starts: the turn header, and a spinner on a TTY until the first output; after a
   * few seconds it counts them, so a slow or silent endpoint is visible before the timeout.
   */
  modelCall(turn: number, again = false): void {
    this.line(this.paint("dim", again ? `[turn ${turn}, sent again]` : `[turn ${turn}]`));
    if (this.streams.stderr.isTTY) {
      let frame = 0;
      const startedAt = Date.now();
      const draw = () => {
        const waited = Date.now() - startedAt;
        const elapsed = waited >= SHOW_ELAPSED_AFTER_MS ? ` (${Math.floor(waited / 1000)} s)` : "";
        this.streams.stderr.write(`\r${SPINNER[frame++ % SPINNER.length]} waiting for the model${elapsed}`);
      };
      draw();
      this.spinner = setInterval(draw, 80);
    }
  }

  /** The model's first output arrived (or the call failed): stop the spinner. */
  modelAnswered(): void {
    if (!this.spinner) return;
    clearInterval(this.spinner);
    this.spinner = undefined;
    this.streams.stderr.write("\r\x1b[2K");
  }

  /** The model's text for this turn, whole. */
  text(value: string): void {
    if (value !== "") this.line(value);
  }

  /** A piece of text as it streams in. */
  textDelta(value: string): void {
    this.modelAnswered();
    this.streams.stdout.write(value);
    this.midLine = !value.endsWith("\n");
  }

  /** A tool call is about to run. */
  toolCall(call: ToolCall): void {
    this.line(this.paint("cyan", `  ${call.name}: ${summarise(call)}`));
  }

  /** A tool call's result, in a few lines; `call` labels it when results land out of order. */
  toolResult(result: ToolResult, call?: ToolCall): void {
    const style: Style = result.isError ? "red" : "dim";
    const lines = preview(result.content);
    if (call) lines.unshift(`← ${call.name}: ${summarise(call)}`);
    for (const line of lines) this.line(this.paint(style, `    ${line}`));
  }

  /** A note from the harness (a retry, an interruption). */
  note(message: string): void {
    this.line(this.paint("yellow", message));
  }

  /** The summary line after a run. */
  summary(result: AgentLoopResult<string>): void {
    const calls = `${result.toolCalls} tool call${result.toolCalls === 1 ? "" : "s"}`;
    const { inputTokens, outputTokens } = result.usage;
    const tokens = this.estimatedTokens
      ? `~${inputTokens} in / ~${outputTokens} out tokens (estimated by the scripted model)`
      : `${inputTokens} in / ${outputTokens} out tokens`;
    const turns = `${result.turns} turn${result.turns === 1 ? "" : "s"}`;
    this.line(this.paint("bold", `── ${result.stopReason} · ${turns} · ${calls} · ${tokens}`));
  }

  /** End any line a stream left open. */
  endLine(): void {
    if (this.midLine) this.streams.stdout.write("\n");
    this.midLine = false;
  }

  private line(text: string): void {
    this.modelAnswered();
    this.endLine();
    this.streams.stdout.write(`${text}\n`);
  }

  private paint(style: Style, text: string): string {
    return this.color ? styleText(style, text) : text;
  }
}

/** A tool call in one line: the command for bash, the input's JSON otherwise. */
export function summarise(call: ToolCall): string {
  const raw = typeof call.input.command === "string" ? call.input.command : JSON.stringify(call.input);
  // cut before flattening: the expression takes seconds over a 50,000-character run of spaces
  return clip(raw.slice(0, 1000).replace(/\s*\n\s*/g, " ⏎ "), 100);
}

/** The first lines of a result, each clipped, and how many lines were left out. */
export function preview(content: string, lines = 4): string[] {
  const all = content.split("\n");
  const shown = all.slice(0, lines).map((l) => clip(l, 120));
  if (all.length > lines) shown.push(`… (${all.length - lines} more lines)`);
  return shown;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
