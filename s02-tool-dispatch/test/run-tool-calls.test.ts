import type { ToolCall } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { dispatch, toolMap } from "../src/dispatch.ts";
import {
  allConcurrencySafe,
  type CallRunner,
  MAX_CONCURRENT_TOOLS,
  runToolCalls,
  type ToolEvent,
} from "../src/run-tool-calls.ts";
import { defineTool, type Tool } from "../src/tool.ts";
import { ALL_TOOLS } from "../src/tools/index.ts";
import { tempWorkdir } from "./temp-workdir.ts";

/** Let every other pending task run once: a call that yields here can be overtaken. */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A tool whose handler is `run`, taking `{ n }` as input. */
function tool(name: string, concurrencySafe: boolean, run: (n: number) => Promise<string>): Tool {
  return defineTool({
    name,
    description: name,
    schema: z.object({ n: z.number() }),
    concurrencySafe,
    run: async ({ n }) => ({ content: await run(n), isError: false }),
  });
}

function calls(name: string, count: number): ToolCall[] {
  return Array.from({ length: count }, (_, n) => ({ id: `toolu_${name}_${n}`, name, input: { n } }));
}

const context = () => ({ cwd: process.cwd(), signal: new AbortController().signal });

describe("runToolCalls", () => {
  it("returns the results in tool_use order when a later call finishes first", async () => {
    let fastDone: () => void = () => {};
    const fastFinished = new Promise<void>((resolve) => {
      fastDone = resolve;
    });
    const tools = toolMap([
      // call 0 cannot finish before call 1 has: it waits for it
      tool("slow", true, async () => {
        await fastFinished;
        return "slow";
      }),
      tool("fast", true, async () => {
        fastDone();
        return "fast";
      }),
    ]);
    const finished: string[] = [];
    const results = await runToolCalls(tools, [...calls("slow", 1), ...calls("fast", 1)], context(), (event) => {
      if (event.type === "tool_result") finished.push(event.call.name);
    });
    expect(finished).toEqual(["fast", "slow"]);
    expect(results.map((r) => r.content)).toEqual(["slow", "fast"]);
  });

  it(`runs MAX_CONCURRENT_TOOLS (${MAX_CONCURRENT_TOOLS}) safe calls at the same time`, async () => {
    // a barrier that opens only once all of them have started: one by one, the first would wait forever
    let started = 0;
    let open: () => void = () => {};
    const allStarted = new Promise<void>((resolve) => {
      open = resolve;
    });
    const tools = toolMap([
      tool("read", true, async (n) => {
        if (++started === MAX_CONCURRENT_TOOLS) open();
        await allStarted;
        return `read ${n}`;
      }),
    ]);
    const results = await runToolCalls(tools, calls("read", MAX_CONCURRENT_TOOLS), context());
    expect(results.map((r) => r.content)).toEqual(Array.from({ length: MAX_CONCURRENT_TOOLS }, (_, n) => `read ${n}`));
  });

  it("never runs more than MAX_CONCURRENT_TOOLS calls at once, and runs them all", async () => {
    let running = 0;
    let peak = 0;
    const tools = toolMap([
      tool("read", true, async (n) => {
        peak = Math.max(peak, ++running);
        await yieldTurn();
        await yieldTurn();
        running--;
        return `read ${n}`;
      }),
    ]);
    const count = MAX_CONCURRENT_TOOLS * 2 + 3;
    const results = await runToolCalls(tools, calls("read", count), context());
    expect(peak).toBe(MAX_CONCURRENT_TOOLS);
    expect(results.map((r) => r.content)).toEqual(Array.from({ length: count }, (_, n) => `read ${n}`));
  });

  it("runs a batch with one writer one call at a time, in the order the model wrote them", async () => {
    const events: string[] = [];
    const record = (kind: string) => async (n: number) => {
      events.push(`start ${kind} ${n}`);
      await yieldTurn(); // a chance to be overtaken, if anything ran beside it
      events.push(`end ${kind} ${n}`);
      return `${kind} ${n}`;
    };
    const tools = toolMap([tool("read", true, record("read")), tool("write", false, record("write"))]);
    const batch: ToolCall[] = [
      { id: "t0", name: "read", input: { n: 0 } },
      { id: "t1", name: "write", input: { n: 1 } },
      { id: "t2", name: "read", input: { n: 2 } },
      { id: "t3", name: "read", input: { n: 3 } },
    ];
    const results = await runToolCalls(tools, batch, context());
    expect(events).toEqual([
      "start read 0",
      "end read 0",
      "start write 1",
      "end write 1",
      "start read 2",
      "end read 2",
      "start read 3",
      "end read 3",
    ]);
    expect(results.map((r) => r.content)).toEqual(["read 0", "write 1", "read 2", "read 3"]);
  });

  it("runs the chapter's bash and a read_file after it one by one: the read sees what bash wrote", async () => {
    // bash is a writer: with it in the turn, nothing starts before the call written before it ends
    const cwd = tempWorkdir();
    const events: string[] = [];
    const batch: ToolCall[] = [
      { id: "t0", name: "bash", input: { command: "printf written > out.txt" } },
      { id: "t1", name: "read_file", input: { path: "out.txt" } },
    ];
    const results = await runToolCalls(toolMap(ALL_TOOLS), batch, { cwd }, (event) =>
      events.push(`${event.type === "tool_call" ? "start" : "end"} ${event.call.name}`),
    );
    expect(events).toEqual(["start bash", "end bash", "start read_file", "end read_file"]);
    expect(results[1]).toEqual({ content: "1\twritten", isError: false });
  });

  it("tells emit of every call exactly once as it starts, and once as its result lands, with that result", async () => {
    const tools = toolMap([tool("read", true, async (n) => `read ${n}`)]);
    const events: ToolEvent[] = [];
    const results = await runToolCalls(tools, calls("read", 3), context(), (event) => events.push(event));
    const started = events.filter((event) => event.type === "tool_call").map((event) => event.call.id);
    expect(started.sort()).toEqual(["toolu_read_0", "toolu_read_1", "toolu_read_2"]);
    const landed = events.flatMap((event) => (event.type === "tool_result" ? [[event.call.id, event.result]] : []));
    expect(Object.fromEntries(landed)).toEqual({
      toolu_read_0: results[0],
      toolu_read_1: results[1],
      toolu_read_2: results[2],
    });
    expect(events).toHaveLength(6);
  });

  it("answers the calls that had not started when the signal fired with interrupted", async () => {
    const controller = new AbortController();
    const ran: number[] = [];
    const tools = toolMap([
      tool("write", false, async (n) => {
        ran.push(n);
        controller.abort(); // Ctrl-C while the first call runs
        return `write ${n}`;
      }),
    ]);
    const results = await runToolCalls(tools, calls("write", 3), { cwd: process.cwd(), signal: controller.signal });
    expect(ran).toEqual([0]);
    expect(results).toEqual([
      { content: "write 0", isError: false },
      { content: "Error [interrupted]: the user interrupted before this call ran.", isError: true },
      { content: "Error [interrupted]: the user interrupted before this call ran.", isError: true },
    ]);
  });

  it("runs each call through the runner it is given, which may wrap dispatch", async () => {
    const tools = toolMap([
      tool("read", true, async (n) => `read ${n}`),
      tool("write", false, async (n) => `write ${n}`),
    ]);
    const asked: string[] = [];
    // a check in front of every call, as a later chapter's permission rules are
    const onlyReads: CallRunner = async (map, call, ctx) => {
      asked.push(call.id);
      if (call.name !== "read") return { content: `Error [denied]: ${call.name} is not allowed.`, isError: true };
      return dispatch(map, call, ctx);
    };
    const batch = [...calls("read", 1), ...calls("write", 1)];
    const results = await runToolCalls(tools, batch, context(), undefined, onlyReads);
    expect(asked).toEqual(["toolu_read_0", "toolu_write_0"]);
    expect(results).toEqual([
      { content: "read 0", isError: false },
      { content: "Error [denied]: write is not allowed.", isError: true },
    ]);
  });

  it("runs each call through dispatch when no runner is given", async () => {
    const tools = toolMap([tool("read", true, async (n) => `read ${n}`)]);
    const results = await runToolCalls(tools, [{ id: "t0", name: "read", input: { n: "one" } }], context());
    expect(results[0].content).toMatch(/^Error \[invalid_arguments\]: read: n: /);
  });

  it("returns no results for no calls", async () => {
    expect(await runToolCalls(toolMap([]), [], context())).toEqual([]);
  });
});

describe("allConcurrencySafe", () => {
  const tools = toolMap([tool("read", true, async () => ""), tool("write", false, async () => "")]);

  it("is true only when every call names a tool that only reads", () => {
    expect(allConcurrencySafe(tools, calls("read", 2))).toBe(true);
    expect(allConcurrencySafe(tools, [...calls("read", 2), ...calls("write", 1)])).toBe(false);
  });

  it("is false when a call names no tool, so that batch runs one by one", () => {
    expect(allConcurrencySafe(tools, [...calls("read", 1), ...calls("nothing", 1)])).toBe(false);
  });
});
