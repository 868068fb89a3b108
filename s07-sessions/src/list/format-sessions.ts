/**
 * Sessions for a person to read: a list (one line each, newest first) and one session's messages
 * in order, what was said, which tools were called, what they returned.
 */
import type { ContentBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { preview } from "@harness/cli";
import { readTranscript, type Transcript } from "../read-transcript.ts";
import type { SessionFile } from "../store/sessions-dir.ts";
import type { MessageRecord } from "../store/transcript-record.ts";

/** One line of the list: a session and what it began with, or why it cannot be read. */
export function formatSessionLine(file: SessionFile): string {
  const when = new Date(file.modified).toISOString().slice(0, 16).replace("T", " ");
  let transcript: Transcript;
  try {
    transcript = readTranscript(file.path);
  } catch (error) {
    return `${file.id}  ${when}  cannot be read: ${(error as Error).message}`;
  }
  const count = transcript.records.length;
  const fork = transcript.header.forkedFrom ? `  (fork of ${transcript.header.forkedFrom.slice(0, 8)})` : "";
  const first = transcript.records.find((r) => r.message.role === "user" && textOf(r.message.content) !== "");
  const opening = first ? `  ${JSON.stringify(clip(textOf(first.message.content), 60))}` : "";
  return `${file.id}  ${when}  ${count} message${count === 1 ? "" : "s"}${opening}${fork}`;
}

/** The list of sessions, newest first; a line saying there are none when there are none. */
export function formatSessionList(files: readonly SessionFile[], dir: string): string {
  if (files.length === 0) return `no sessions yet in ${dir}`;
  return files.map(formatSessionLine).join("\n");
}

/** A whole session: its header, then each message with who wrote it and what it holds. */
export function formatSession(transcript: Transcript): string {
  const { header } = transcript;
  const lines = [
    `session ${header.id}`,
    `  created ${header.created} in ${header.cwd}${header.forkedFrom ? `, forked from ${header.forkedFrom}` : ""}`,
  ];
  transcript.records.forEach((record, i) => {
    lines.push(`[${i + 1}] ${who(record)}`);
    const { content } = record.message;
    for (const block of typeof content === "string" ? [{ type: "text" as const, text: content }] : content) {
      lines.push(...describe(block).map((line) => `  ${line}`.trimEnd()));
    }
  });
  if (transcript.torn)
    lines.push(`(line ${transcript.torn.line} is not whole: ${transcript.torn.bytes} bytes skipped)`);
  return lines.join("\n");
}

function who(record: MessageRecord): string {
  const time = record.time.slice(11, 19);
  if (record.message.role === "user") return `user · ${time}`;
  const usage = record.usage ? ` · ${record.usage.inputTokens} in / ${record.usage.outputTokens} out` : "";
  return `assistant · ${time} · ${record.model}${usage}`;
}

/** A block in a few lines: text as it is, a call as its name and input, a result as its first lines. */
function describe(block: ContentBlockParam): string[] {
  switch (block.type) {
    case "text":
      return preview(block.text, 6);
    case "tool_use":
      return [`→ ${block.name}: ${clip(JSON.stringify(block.input), 100)}`];
    case "tool_result": {
      const text = typeof block.content === "string" ? block.content : textOf(block.content ?? []);
      const [first, ...rest] = preview(text, 3);
      return [`← ${block.is_error ? "error: " : ""}${first}`, ...rest.map((line) => `  ${line}`)];
    }
    default:
      return [`(${block.type})`];
  }
}

function textOf(content: string | readonly { type: string; text?: string }[]): string {
  if (typeof content === "string") return content;
  return content
    .map((b) => (b.type === "text" ? (b.text ?? "") : ""))
    .join(" ")
    .trim();
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
