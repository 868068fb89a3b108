/**
 * Tool search: the servers' tools are sent as they are up to a tenth of the window, held back
 * past it; a search loads what it finds into the live map; a held-back tool called by name loads.
 */
import { dispatch, type Tool, toolMap } from "@harness/s02-tool-dispatch";
import { toolOutput } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { definitionTokens, offerTools, searchAround, TOOL_SEARCH, toolSearch } from "../src/tool-search.ts";

const tool = (name: string, description: string): Tool => ({
  name,
  description,
  inputSchema: { type: "object", properties: {} },
  parse: (input) => ({ ok: true, value: input }),
  concurrencySafe: true,
  run: async () => toolOutput(`${name} ran`),
});
const many = Array.from({ length: 150 }, (_, i) => tool(`mcp__s__tool_${i}`, `Tool ${i}. ${"words ".repeat(80)}`));

describe("offerTools", () => {
  it("sends the tools while they take at most 10% of the window, and holds them all back past it", () => {
    const tokens = definitionTokens(many);
    expect(offerTools(many, tokens * 10).deferred).toEqual([]);
    const held = offerTools(many, tokens * 10 - 10);
    expect(held.sent).toEqual([]);
    expect(held.deferred).toHaveLength(150);
    expect(held.limit).toBe(Math.floor((tokens * 10 - 10) / 10));
  });
});

describe("toolSearch", () => {
  const weather = tool("mcp__w__forecast", "Forecast the weather for a city.");
  const deferred = [...many.slice(0, 5), weather];

  it("loads what matches the words, the best first, into the map the loop sends from", async () => {
    const map = new Map(toolMap([]));
    const search = toolSearch(deferred, map);
    map.set(TOOL_SEARCH, search);
    expect(search.description).toContain("mcp__w__forecast");
    const found = await dispatch(
      map,
      { id: "1", name: TOOL_SEARCH, input: { query: "weather forecast" } },
      { cwd: "." },
    );
    expect(found.content).toMatch(/^Loaded 1 tool; call them from your next turn:\n\{"name":"mcp__w__forecast"/);
    expect([...map.keys()]).toEqual([TOOL_SEARCH, "mcp__w__forecast"]);
  });

  it("loads by name with select:, and says what there is when nothing matches", async () => {
    const map = new Map(toolMap([]));
    const search = toolSearch(deferred, map);
    await search.run({ query: "select:mcp__s__tool_1,mcp__s__tool_3" }, { cwd: "." });
    expect([...map.keys()]).toEqual(["mcp__s__tool_1", "mcp__s__tool_3"]);
    expect((await search.run({ query: "database" }, { cwd: "." })).content).toMatch(/^No tool matches "database"/);
  });

  it("loads a held-back tool called by its name, then runs it through the runner", async () => {
    const map = new Map(toolMap([]));
    const seen: string[] = [];
    const runCall = searchAround(deferred, map, (tools, call, context) => {
      seen.push(call.name);
      return dispatch(tools, call, context);
    });
    const result = await runCall(map, { id: "1", name: "mcp__w__forecast", input: {} }, { cwd: "." });
    expect(result.content).toBe("mcp__w__forecast ran");
    expect(seen).toEqual(["mcp__w__forecast"]);
  });
});
