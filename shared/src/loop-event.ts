/**
 * What a loop tells the outside world: one stream of events, in the order things happen. The
 * terminal view, a trace, a transcript subscribe to it; the loop runs the same with no listener.
 * These are s01's; a later chapter that reports more adds its own events beside them.
 */
import type { Message, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { AgentLoopResult } from "./agent-loop-result.ts";
import type { AgentTurn, ToolCall } from "./agent-turn.ts";
import type { ToolResult } from "./tool-result.ts";

/** s01's events. */
export type LoopEvent =
  /** A model call is about to be sent; `turnNumber` counts from 1, `request` is what is sent. */
  | { type: "model_call"; turnNumber: number; request: MessageCreateParamsNonStreaming }
  /** The response arrived and was read into a turn; its assistant message is in the history. */
  | { type: "turn"; turn: AgentTurn; response: Message }
  /** A tool call is about to run. */
  | { type: "tool_call"; call: ToolCall }
  /** A tool call ran: the result the model will read. Calls run at once land in any order. */
  | { type: "tool_result"; call: ToolCall; result: ToolResult }
  /** The run is over: its result, as the loop returns it. */
  | { type: "end"; result: AgentLoopResult<string> };

/**
 * Where a loop's events go.
 * Contract: called synchronously, in order; a listener that throws ends the run with its error
 * (a transcript that cannot be written stops the run).
 */
export type Emit<E extends { type: string } = LoopEvent> = (event: E) => void;
