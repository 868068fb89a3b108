/**
 * What MCP servers cost (s14). First, start time: the reference filesystem server (run from
 * node_modules) started through s14's `McpServers` once alone, five at once (as a session starts
 * them), and five one after the other; five at once should cost about what one does, not five
 * times it, though each is a Node process of its own and two cores start five more slowly.
 *
 * A server that waits before it is ready (a database to open) shows it plainly: five at once take
 * about as long as one.
 *
 * Then a call: reading the same file with s02's read_file (in this process) and with the
 * filesystem server's read_text_file (a JSON-RPC round trip over a pipe to another process), both
 * as the loop runs a tool (`run` on the tool from the map); per-call medians compared.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readFileTool } from "@harness/s02-tool-dispatch";
import { McpServers, type ServerConfig } from "@harness/s14-mcp";
import { atMost, type Figure, type Section, summarize } from "../section.ts";

/** How the MCP scenario runs. */
export interface McpOptions {
  warmup: number;
  reps: number;
  /** Calls timed per repetition, each way. */
  calls: number;
  repoRoot: string;
}

/** The filesystem server over `dir`, named `name`. */
function filesystem(repoRoot: string, name: string, dir: string): ServerConfig {
  const require = createRequire(join(repoRoot, "s14-mcp", "package.json"));
  const entry = join(
    dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")),
    "dist",
    "index.js",
  );
  return {
    type: "stdio",
    name,
    command: process.execPath,
    args: [entry, dir],
    env: {},
    file: "bench",
    dir: repoRoot,
    source: "user",
  };
}

/** Milliseconds the slow server waits before it is ready. */
const READY_MS = 1_500;

/** A server that waits `READY_MS` before it answers anything. */
function slow(repoRoot: string, name: string): ServerConfig {
  const require = createRequire(join(repoRoot, "s14-mcp", "package.json"));
  const sdk = dirname(require.resolve("@modelcontextprotocol/sdk/package.json"));
  const entry = join(repoRoot, "bench", "mcp-slow-server.mjs");
  return {
    type: "stdio",
    name,
    command: process.execPath,
    args: [entry, sdk, String(READY_MS)],
    env: {},
    file: "bench",
    dir: repoRoot,
    source: "user",
  };
}

/** Start `configs` (at once, or one after the other); the wall time in ms. */
async function startTime(configs: ServerConfig[], oneByOne: boolean): Promise<number> {
  const problems: string[] = [];
  const servers = new McpServers({ env: process.env, say: (line) => problems.push(line) });
  const started = performance.now();
  try {
    if (oneByOne) for (const config of configs) await servers.start([config]);
    else await servers.start(configs);
    if (problems.length > 0) throw new Error(problems.join("; "));
    return performance.now() - started;
  } finally {
    await servers.close();
  }
}

/** Run the scenario. */
export async function mcp(o: McpOptions): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), "bench-mcp-"));
  const problems: string[] = [];
  try {
    writeFileSync(join(dir, "notes.txt"), "a line to read\n".repeat(20));
    const five = Array.from({ length: 5 }, (_, i) => filesystem(o.repoRoot, `fs${i}`, dir));
    const waiting = Array.from({ length: 5 }, (_, i) => slow(o.repoRoot, `slow${i}`));
    const [one, atOnce, inTurn, slowOne, slowAtOnce] = [[], [], [], [], []] as number[][];
    for (let rep = -o.warmup; rep < o.reps; rep++) {
      const times = [
        await startTime(five.slice(0, 1), false),
        await startTime(five, false),
        await startTime(five, true),
        await startTime(waiting.slice(0, 1), false),
        await startTime(waiting, false),
      ];
      if (rep < 0) continue;
      for (const [i, list] of [one, atOnce, inTurn, slowOne, slowAtOnce].entries()) list.push(times[i]);
    }
    // a call: s02's read_file against the server's read_text_file, on the same file
    const servers = new McpServers({ env: process.env, say: (line) => problems.push(line) });
    const builtIn: number[] = [];
    const overMcp: number[] = [];
    try {
      await servers.start([five[0]]);
      const remote = servers.tools().find((tool) => tool.name === "mcp__fs0__read_text_file");
      if (!remote) throw new Error("the filesystem server has no read_text_file");
      const path = join(dir, "notes.txt");
      for (let rep = -o.warmup; rep < o.reps; rep++) {
        let started = performance.now();
        for (let i = 0; i < o.calls; i++) {
          const result = await readFileTool.run({ path: "notes.txt" }, { cwd: dir });
          if (result.isError) problems.push(`read_file: ${result.content}`);
        }
        const local = (performance.now() - started) / o.calls;
        started = performance.now();
        for (let i = 0; i < o.calls; i++) {
          const result = await remote.run({ path }, { cwd: dir });
          if (result.isError) problems.push(`read_text_file: ${result.content}`);
        }
        const served = (performance.now() - started) / o.calls;
        if (rep < 0) continue;
        builtIn.push(local);
        overMcp.push(served);
      }
    } finally {
      await servers.close();
    }
    const ratio = (a: number[], b: number[]) => summarize(a.map((t, i) => t / b[i]));
    const figures: Figure[] = [
      {
        label: "five servers started at once ÷ one",
        spread: ratio(atOnce, one),
        unit: "x",
        detail: `${summarize(atOnce).median.toFixed(0)} ms against ${summarize(one).median.toFixed(0)} ms (medians)`,
      },
      {
        label: "five servers started one after the other ÷ one",
        spread: ratio(inTurn, one),
        unit: "x",
        detail: `${summarize(inTurn).median.toFixed(0)} ms (median)`,
      },
      {
        label: `five servers that wait ${READY_MS} ms to be ready, at once ÷ one`,
        spread: ratio(slowAtOnce, slowOne),
        unit: "x",
        detail: `${summarize(slowAtOnce).median.toFixed(0)} ms against ${summarize(slowOne).median.toFixed(0)} ms (medians)`,
        target: atMost(ratio(slowAtOnce, slowOne), 1.5, "≈ 1x of one (≤ 1.5x)"),
      },
      {
        label: "an MCP call (read_text_file) ÷ a built-in one (read_file)",
        spread: ratio(overMcp, builtIn),
        unit: "x",
        detail: `${summarize(overMcp).median.toFixed(2)} ms against ${summarize(builtIn).median.toFixed(2)} ms a call (medians of ${o.calls} calls)`,
      },
    ];
    return {
      title: "MCP servers (s14)",
      about:
        "Start: the reference filesystem server (@modelcontextprotocol/server-filesystem, from node_modules) " +
        "started through s14's McpServers alone, five at once and five one after the other, each until its tools " +
        `are listed; the same for a server that waits ${READY_MS} ms before it is ready; ${o.reps} repetitions (${o.warmup} warm-up). A call: the same 300-byte file read ${o.calls} ` +
        "times with s02's read_file and with the server's read_text_file.",
      figures,
      notes: [
        "A server's start is a Node process starting and loading its modules: CPU-bound, so five at once on two " +
          "cores share them. What concurrency removes is the waiting: one slow server no longer holds up the others.",
      ],
      problems,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
