/**
 * Many tools: every tool's definition rides in every request, so 150 server tools can take a good
 * part of the context window before the first word. When the servers' definitions would take more
 * than `TOOL_SEARCH_SHARE` of the window (Claude Code's tool search starts at the same tenth), they
 * are held back: the model gets `tool_search`, whose description names each held-back tool, and
 * each search loads the tools it finds into the map, sent from the next request on. A call to a
 * held-back tool by its name loads it too (`searchAround`). The description does not change as tools
 * load, so s10's cached prefix holds; the tools list grows, which s10 counts as a change there.
 * Left out: search by meaning (the match is by words in names and descriptions), unloading.
 */
import { type CallRunner, defineTool, dispatch, type Tool, type ToolMap, toApiTool } from "@harness/s02-tool-dispatch";
import { toolOutput } from "@harness/shared";
import { z } from "zod";

/** The share of the context window the servers' tool definitions may take before they are held back. */
export const TOOL_SEARCH_SHARE = 0.1;

/** The search tool's name. */
export const TOOL_SEARCH = "tool_search";

/** Tools found by a search when it does not say how many. */
export const DEFAULT_SEARCH_RESULTS = 5;

/** Tokens a definition takes, estimated as s08 estimates a request: four characters a token. */
export function definitionTokens(tools: readonly Tool[]): number {
  return Math.ceil(JSON.stringify(tools.map(toApiTool)).length / 4);
}

/** What the servers' tools come to: sent with every request, or held back behind a search. */
export interface OfferedTools {
  /** The tools sent from the start (all of them, when they fit). */
  sent: Tool[];
  /** The tools held back; empty when they fit. */
  deferred: Tool[];
  /** Their definitions' estimated tokens, and the most they may take. */
  tokens: number;
  limit: number;
}

/** Send `tools` as they are, or hold them back when they take more than the share of `contextWindow`. */
export function offerTools(tools: readonly Tool[], contextWindow: number): OfferedTools {
  const tokens = definitionTokens(tools);
  const limit = Math.floor(contextWindow * TOOL_SEARCH_SHARE);
  if (tokens <= limit) return { sent: [...tools], deferred: [], tokens, limit };
  return { sent: [], deferred: [...tools], tokens, limit }; // too many: all held back, found by search
}

/**
 * The search tool over `deferred`: each search loads what it finds into `map`, the live tool map
 * the loop sends from. `select:NAME,NAME` loads those by name; other words match names and
 * descriptions, the most matches first.
 */
export function toolSearch(deferred: readonly Tool[], map: Map<string, Tool>): Tool {
  const names = deferred.map((tool) => tool.name);
  return defineTool({
    name: TOOL_SEARCH,
    description: [
      "Find tools that are not loaded yet, and load them: they can be called from your next turn.",
      'Search by words ("weather forecast"), or load by name with "select:NAME,NAME".',
      `Tools you can load: ${names.join(", ")}`,
    ].join("\n"),
    schema: z.object({
      query: z.string().min(1).describe('words to find tools by, or "select:NAME,NAME"'),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(20)
        .optional()
        .describe(`at most this many (default ${DEFAULT_SEARCH_RESULTS})`),
    }),
    concurrencySafe: false, // it changes the tool map
    async run({ query, max_results }) {
      const found = query.startsWith("select:")
        ? deferred.filter((tool) =>
            query
              .slice(7)
              .split(",")
              .map((s) => s.trim())
              .includes(tool.name),
          )
        : rank(deferred, query).slice(0, max_results ?? DEFAULT_SEARCH_RESULTS);
      if (found.length === 0) return toolOutput(`No tool matches "${query}". Tools you can load: ${names.join(", ")}`);
      for (const tool of found) map.set(tool.name, tool);
      const shown = found.map((tool) => JSON.stringify(toApiTool(tool)));
      return toolOutput(
        `Loaded ${found.length} tool${found.length === 1 ? "" : "s"}; call them from your next turn:\n${shown.join("\n")}`,
      );
    },
  });
}

/** Words that would match nearly every description. */
const COMMON = new Set(["the", "an", "and", "or", "to", "of", "for", "in", "on", "with", "it", "is", "use", "tool"]);

/** `deferred` that match a word of `query`, the most matching words first (names count twice). */
function rank(deferred: readonly Tool[], query: string): Tool[] {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && !COMMON.has(word));
  const score = (tool: Tool) =>
    words.reduce(
      (sum, word) =>
        sum +
        (tool.name.toLowerCase().includes(word) ? 2 : 0) +
        (tool.description.toLowerCase().includes(word) ? 1 : 0),
      0,
    );
  return deferred
    .map((tool) => ({ tool, score: score(tool) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .map((entry) => entry.tool);
}

/**
 * The runner around `runCall`: `tool_search` runs at once (it only loads definitions, as todo_write
 * only writes a list: no permission to ask); a held-back tool called by its name is loaded into
 * `map` first, then goes through `runCall` (the rules and hooks) as every tool does.
 */
export function searchAround(deferred: readonly Tool[], map: Map<string, Tool>, runCall: CallRunner): CallRunner {
  const byName = new Map(deferred.map((tool) => [tool.name, tool]));
  return (tools: ToolMap, call, context) => {
    if (call.name === TOOL_SEARCH && map.has(TOOL_SEARCH)) return dispatch(tools, call, context);
    const held = byName.get(call.name);
    if (held && !map.has(call.name)) map.set(call.name, held);
    return runCall(tools, call, context);
  };
}
