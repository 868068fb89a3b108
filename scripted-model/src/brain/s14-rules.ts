/**
 * s14's demo rules: tools served by another program. Asked what a chapter adds, the scripted
 * model calls the course's MCP server (`mcp__course__chapter`) and answers from the line it sent
 * back, or says what the server answered when it was an error. Asked to find a tool for a job
 * when the servers' tools are held back behind `tool_search`, it searches with the prompt's
 * words, calls the first tool the search loaded, and answers from its output. Every step is read
 * off the conversation.
 */
import { text, textReply, toolUse, reply as withBlocks } from "../script.ts";
import type { DemoRule } from "./read-conversation.ts";

/** The course server's tool, as the harness names it. */
export const COURSE_CHAPTER_TOOL = "mcp__course__chapter";

/** "Ask the course's MCP server what s05 adds": one call, the answer from its result. */
const askCourseServer: DemoRule = {
  example: "Ask the course's MCP server what s05 adds",
  needs: [COURSE_CHAPTER_TOOL],
  matches: (prompt) => /\bMCP\b.*\bs\d\d\b/i.test(prompt),
  next({ prompt, exchanges }) {
    const asked = exchanges.find((e) => e.name === COURSE_CHAPTER_TOOL);
    const id = /\b(s\d\d)\b/i.exec(prompt)?.[1].toLowerCase() ?? "s01";
    if (!asked) {
      return withBlocks([text(`I'll ask the course's MCP server about ${id}.`), toolUse(COURSE_CHAPTER_TOOL, { id })]);
    }
    const line = asked.output.split("\n")[0];
    if (asked.isError) return textReply(`The course's server could not say: ${line}`);
    return textReply(`The course's MCP server says: ${line}`);
  },
};

/** "Find a tool to ... and use it": search, call what the search loaded, answer from its output. */
const searchThenCall: DemoRule = {
  example: "Find a tool to forecast the weather and use it",
  needs: ["tool_search"],
  matches: (prompt) => /^find a tool to (.+?) and use it/i.test(prompt),
  next({ prompt, exchanges }) {
    const job = /^find a tool to (.+?) and use it/i.exec(prompt)?.[1] ?? prompt;
    const search = exchanges.find((e) => e.name === "tool_search");
    if (!search)
      return withBlocks([
        text("The tools I need are not loaded: I'll search for one."),
        toolUse("tool_search", { query: job }),
      ]);
    const loaded = /"name":"([^"]+)"/.exec(search.output)?.[1];
    if (!loaded) return textReply(`No tool to ${job}: ${search.output.split("\n")[0]}`);
    const used = exchanges.find((e) => e.name === loaded);
    if (!used) return withBlocks([text(`The search loaded ${loaded}; I'll call it.`), toolUse(loaded, {})]);
    return textReply(`${loaded} answered: ${used.output.split("\n")[0]}`);
  },
};

/** s14's rules, in the order they are tried. */
export const S14_RULES: DemoRule[] = [askCourseServer, searchThenCall];
