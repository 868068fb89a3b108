/**
 * The scripted model's summary of a conversation, built from the conversation itself: the user's
 * requests and the facts they stated, what the assistant said it would do, the files read or
 * written and the commands run with what they returned, and whether the latest request was
 * answered. A summary it wrote earlier (in a user message, or in a `compaction` block) is read back
 * and carried forward, so facts survive a summary of a summary.
 *
 * It is what a rule-based stand-in can do, no more: it keeps the first line of a command's output,
 * not the line that mattered, and bounds each section, so a fact buried in a long result is lost,
 * as it can be with a real model. Left out: understanding. Nothing here is canned.
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";

/** The sections of a scripted summary, in order: the ones a harness's summary prompt asks for. */
export const SUMMARY_SECTIONS = ["Task", "Decisions", "Files touched", "What is left"] as const;

/** How many items each section keeps at most (the most recent ones; the first request always). */
export const SUMMARY_LIMITS = { requests: 8, facts: 50, decisions: 6, files: 12 } as const;

type Section = (typeof SUMMARY_SECTIONS)[number];
type Block = Record<string, unknown> & { type?: unknown };

/** The items of a summary, section by section, before they are written out. */
interface Items {
  requests: string[];
  facts: string[];
  decisions: string[];
  files: string[];
}

/**
 * Summarise `messages` in the scripted model's four sections (`SUMMARY_SECTIONS`).
 * Contract: every item comes from the messages (or from an earlier summary in them); the first
 * request and every fact the user stated with "Note:" are kept, up to `SUMMARY_LIMITS`.
 */
export function summariseConversation(messages: readonly MessageParam[]): string {
  const items: Items = { requests: [], facts: [], decisions: [], files: [] };
  const results = resultsById(messages);
  let latest = "";
  let state = "not started";
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (block.type === "compaction" && typeof block.content === "string") carry(items, block.content);
      if (block.type === "text" && typeof block.text === "string") {
        if (message.role === "user") {
          if (isSummary(block.text)) carry(items, block.text);
          else {
            latest = block.text.trim();
            state = "not yet answered";
            addRequest(items, latest);
          }
        } else {
          items.decisions.push(`said: ${clip(oneLine(block.text), 200)}`);
        }
      }
      if (block.type === "tool_use" && typeof block.id === "string") {
        const line = describeCall(
          String(block.name),
          (block.input ?? {}) as Record<string, unknown>,
          results[block.id],
        );
        items.files.push(line);
        state = `in progress; the last step: ${line}`;
      }
    }
    if (message.role === "assistant" && !blocksOf(message).some((b) => b.type === "tool_use")) state = "answered";
  }
  const sections: Record<Section, string[]> = {
    Task: [...bounded(items.requests, SUMMARY_LIMITS.requests, true), ...bounded(items.facts, SUMMARY_LIMITS.facts)],
    Decisions: bounded(items.decisions, SUMMARY_LIMITS.decisions),
    "Files touched": bounded(items.files, SUMMARY_LIMITS.files),
    "What is left": latest === "" ? [] : [`the latest request, ${state}: ${quote(latest)}`],
  };
  return SUMMARY_SECTIONS.map((name) => {
    const lines = sections[name].length > 0 ? sections[name].map((item) => `- ${item}`) : ["- (nothing)"];
    return `## ${name}\n${lines.join("\n")}`;
  }).join("\n\n");
}

/** True when `text` holds a summary in these sections (the model's own earlier one). */
export function isSummary(text: string): boolean {
  return SUMMARY_SECTIONS.every((name) => new RegExp(`^## ${name}$`, "m").test(text));
}

/** Take an earlier summary's items back, each into its own list. */
function carry(items: Items, summary: string): void {
  let section: string | undefined;
  for (const line of summary.split("\n")) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) {
      section = heading[1];
      continue;
    }
    const item = /^- (.+)$/.exec(line)?.[1];
    if (!item || item === "(nothing)") continue;
    if (section === "Task") (item.startsWith("noted: ") ? items.facts : items.requests).push(item);
    else if (section === "Decisions") items.decisions.push(item);
    else if (section === "Files touched") items.files.push(item);
  }
}

/** A request as an item; "Note: …" is a fact the user stated and is kept among the facts. */
function addRequest(items: Items, text: string): void {
  const note = /^note:\s*([\s\S]+)$/i.exec(text);
  const item = note ? `noted: ${clip(oneLine(note[1]), 200)}` : `asked: ${quote(text)}`;
  const list = note ? items.facts : items.requests;
  // a request the summary carried and the history repeats word for word is one request
  if (!list.includes(item)) list.push(item);
}

/** One line for a tool call and its result: what was read, written or run, and what came back. */
function describeCall(name: string, input: Record<string, unknown>, result: Result | undefined): string {
  const failed = result?.isError ? " (failed)" : "";
  const output = result?.text ?? "(no result)";
  switch (name) {
    case "bash": {
      const exit = /\[exit code (\d+)\]$/.exec(output)?.[1];
      const body = output.replace(/\n?\[[^\]\n]*\]$/, "");
      const lines = body === "(no output)" ? [] : body.split("\n");
      const first = lines.find((l) => l.trim() !== "") ?? "";
      const status = exit === undefined ? "did not finish" : `exit ${exit}`;
      return `ran ${code(String(input.command ?? ""))}: ${status}, ${lines.length} line${lines.length === 1 ? "" : "s"}${first ? `, first: ${clip(first.trim(), 120)}` : ""}`;
    }
    case "read_file": {
      const total = /\[lines \d+-\d+ of (\d+)/.exec(output)?.[1];
      return `read ${String(input.path)}${total ? ` (${total} line${total === "1" ? "" : "s"})` : ""}${failed}`;
    }
    case "write_file":
      return `wrote ${String(input.path)}${failed}`;
    case "edit_file":
      return `edited ${String(input.path)}${failed}`;
    default:
      return `${name} ${clip(JSON.stringify(input), 120)}${failed}: ${clip(oneLine(output), 120)}`;
  }
}

interface Result {
  text: string;
  isError: boolean;
}

/** Every tool_result's text, by the id it answers. */
function resultsById(messages: readonly MessageParam[]): Record<string, Result> {
  const results: Record<string, Result> = {};
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (block.type !== "tool_result") continue;
      const content = block.content;
      const text =
        typeof content === "string"
          ? content
          : Array.isArray(content)
            ? content.map((c) => (typeof c?.text === "string" ? c.text : "")).join("")
            : "";
      results[String(block.tool_use_id)] = { text, isError: block.is_error === true };
    }
  }
  return results;
}

function blocksOf(message: MessageParam): Block[] {
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return Array.isArray(message.content) ? (message.content as unknown as Block[]) : [];
}

/** The first and the latest items when `keepFirst`, else the latest, up to `limit`. */
function bounded(items: string[], limit: number, keepFirst = false): string[] {
  if (items.length <= limit) return items;
  return keepFirst ? [items[0], ...items.slice(items.length - limit + 1)] : items.slice(items.length - limit);
}

function quote(text: string): string {
  return JSON.stringify(clip(oneLine(text), 300));
}

function code(text: string): string {
  return `\`${clip(oneLine(text), 120)}\``;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ⏎ ").trim();
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
