/**
 * The fault matrix on this chapter's loop, on every wire format, with what s14 adds in place: a
 * real MCP server's tools in the map (the test server, started once over stdio) and
 * `tool_search` with its runner around the call runner. Each case's script goes through the
 * format's real SDK and s09's adapter. A fault meets the servers' tools as it meets everything
 * else: the run ends as the matrix says, no partial call runs, the history stays valid, and the
 * server is still up for the next case.
 */
import { ALL_TOOLS, dispatch, type Tool, toolMap } from "@harness/s02-tool-dispatch";
import { type ProviderAdapter, scriptedAdapter, WIRE_FORMATS } from "@harness/s09-providers";
import {
  FAULT_CASES,
  type FaultMatrixLoop,
  faultCaseMismatches,
  faultCaseOn,
  runFaultCase,
} from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentLoop } from "../src/agent-loop.ts";
import { McpServers } from "../src/mcp-servers.ts";
import { searchAround, TOOL_SEARCH, toolSearch } from "../src/tool-search.ts";
import { config, testServer } from "./servers.ts";

const servers = new McpServers({ env: process.env, say: () => {} });
beforeAll(() => servers.start([config("test", testServer())]), 30_000);
afterAll(() => servers.close());

const loop: FaultMatrixLoop<ProviderAdapter> = (adapter, messages, cwd) => {
  const [echo, ...held] = servers.tools();
  const tools = new Map<string, Tool>(toolMap([...ALL_TOOLS, echo]));
  tools.set(TOOL_SEARCH, toolSearch(held, tools));
  return agentLoop(adapter.streamTurn, messages, {
    model: "test-model",
    cwd,
    bashTimeoutMs: 10_000,
    tools,
    runCall: searchAround(held, tools, dispatch),
  });
};

describe.each(WIRE_FORMATS)("the loop on %s under the fault matrix, with an MCP server's tools", (format) => {
  it.each(FAULT_CASES.map((fault) => [fault.name, fault] as const))(
    "meets %s as the matrix says, runs no partial tool call, keeps a valid history",
    async (_, fault) => {
      const outcome = await runFaultCase(faultCaseOn(fault, format), loop, {
        connect: (scripted, maxRetries) =>
          scriptedAdapter(format, scripted, { maxRetries, retryDelayMs: 1, promptCacheKey: () => "k" }),
      });
      expect(faultCaseMismatches(faultCaseOn(fault, format), "streaming", outcome)).toEqual([]);
      expect(historyProblems(outcome.history)).toEqual([]);
      expect(servers.list()[0].state.kind).toBe("connected");
    },
  );
});
