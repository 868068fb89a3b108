/**
 * A child's lines on the terminal, under its parent's tool call: each child is drawn by a view of
 * its own (the CLI's, made by `makeView`), whose every line is indented by the child's depth. A
 * child's text is shown whole with its turn, not as it streams: children that run at once would
 * cut into each other's lines. While more than one child runs, each line says whose it is.
 */
import { Writable } from "node:stream";
import type { Emit } from "@harness/shared";
import type { Subagent } from "../subagents.ts";

/** Where a child's view writes: its own stdout, and a stderr with no terminal (no spinner). */
export interface ChildStreams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** The events a child's view is not shown: its text as it streams (it gets the whole text with the turn). */
const STREAMED = new Set(["stream_start", "text"]);

/** One child's lines: its listener, and the end of it. */
export interface ChildLines {
  /** Hears the child's events and draws them, indented under its parent's call. */
  show: Emit<{ type: string }>;
  /** The child has ended: it no longer counts among those running. */
  close(): void;
}

/** Where the children's lines go: each child opens its own. */
export interface SubagentLines {
  /** The lines of `agent`, from its start to its `close`. */
  open(agent: Subagent): ChildLines;
}

/** Makes each child's view; `open` gives the child's listener, and `close` ends it. */
export function subagentLines(
  out: NodeJS.WritableStream,
  makeView: (streams: ChildStreams) => Emit<{ type: string }>,
): SubagentLines {
  let running = 0;
  return {
    open(agent: Subagent): ChildLines {
      running++;
      const indent = "    ".repeat(agent.depth);
      const label = `[${agent.description}] `;
      const stdout = new Writable({
        decodeStrings: false,
        write(chunk: string | Buffer, _encoding, done) {
          const text = String(chunk);
          const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
          const whose = running > 1 ? label : "";
          out.write(
            lines.map((line) => `${indent}${whose}${line}`.trimEnd()).join("\n") + (text.endsWith("\n") ? "\n" : ""),
          );
          done();
        },
      });
      const stderr = new Writable({ write: (_chunk, _encoding, done) => done() });
      const view = makeView({ stdout, stderr });
      let open = true;
      return {
        show: (event) => {
          if (!STREAMED.has(event.type)) view(event);
        },
        close() {
          if (open) running--;
          open = false;
        },
      };
    },
  };
}
