/**
 * The course's own MCP server, written with the official SDK: what `pnpm s14` starts through the
 * sample `.mcp.json` beside it. Two tools over stdio: `chapter` says what a chapter of this course
 * adds (and answers `isError` for one that does not exist), `chapters` lists them. Run it alone and
 * type JSON-RPC at it, or let the harness speak for you.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

/** What each chapter adds, in a line. */
const CHAPTERS: Record<string, string> = {
  s01: "s01-agent-loop: the bounded loop, the stop-reason table and the bash tool",
  s02: "s02-tool-dispatch: tool objects with one schema, a dispatch map and coded tool errors",
  s03: "s03-streaming: streamed responses, tool calls parsed from complete blocks, Ctrl-C",
  s04: "s04-tracing: every iteration on disk, and a tracer",
  s05: "s05-permissions: allow, ask and deny rules and modes in front of every tool call",
  s06: "s06-hooks: the user's commands at fixed points of the loop",
  s07: "s07-sessions: an append-only transcript; continue, resume, fork",
  s08: "s08-compaction: context measured, old results cleared, history summarised",
  s09: "s09-providers: one loop over three wire formats",
  s10: "s10-prompt-caching: cache breakpoints, cache reads measured and priced",
  s11: "s11-planning: a todo_write tool and its reminders",
  s12: "s12-subagents: a task tool running a child loop with a fresh history",
  s13: "s13-skills: SKILL.md folders, their bodies loaded on use",
  s14: "s14-mcp: tools from other programs over the Model Context Protocol",
};

const server = new McpServer({ name: "course", version: "0.1.0" });

server.registerTool(
  "chapter",
  {
    description: "What one chapter of the harness course adds, in a line.",
    inputSchema: { id: z.string().describe("the chapter's number, like s05") },
    annotations: { readOnlyHint: true },
  },
  async ({ id }) => {
    const line = CHAPTERS[id.toLowerCase()];
    if (line) return { content: [{ type: "text", text: line }] };
    return {
      content: [{ type: "text", text: `There is no chapter ${id}: the chapters are s01 to s14.` }],
      isError: true,
    };
  },
);

server.registerTool(
  "chapters",
  { description: "Every chapter of the harness course, one a line.", annotations: { readOnlyHint: true } },
  async () => ({ content: [{ type: "text", text: Object.values(CHAPTERS).join("\n") }] }),
);

await server.connect(new StdioServerTransport());
