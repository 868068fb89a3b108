/**
 * Recorded responses (test/fixtures/openai, testkit/fixtures/anthropic) served to the real SDKs
 * through their `fetch` option: each request gets the next recording, as SSE in odd-sized pieces
 * (events and UTF-8 characters straddle reads, as on a socket) or as a JSON body. The request
 * bodies are kept, to assert on what an adapter sent.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The recorded OpenAI-format responses. */
export const OPENAI_FIXTURES = join(import.meta.dirname, "fixtures", "openai");

/** The recorded Messages API responses, kept once in the repository for every package's tests. */
export const ANTHROPIC_FIXTURES = join(import.meta.dirname, "..", "..", "testkit", "fixtures", "anthropic");

/** The SSE payloads of a chunk file, one parsed JSON object per line. */
export function chunkLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

/** How a recording goes on the wire. */
export type Recording =
  /** Chat Completions: `data: <line>` each, then `data: [DONE]`. */
  | { kind: "chat"; lines: string[] }
  /** Responses API or Messages API: `event: <type>` over each `data: <line>`. */
  | { kind: "typed"; lines: string[] }
  /** A whole body with this status. */
  | { kind: "json"; status: number; body: string };

/** A chunk file as one Chat Completions stream. */
export function chatStream(file: string): Recording {
  return { kind: "chat", lines: readFileSync(file, "utf8").split("\n").filter(Boolean) };
}

/** A chunk file of typed events as one stream per `response.created` (a file may hold several). */
export function typedStreams(file: string, first = "response.created"): Recording[] {
  const streams: string[][] = [];
  for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
    if (typeOf(line) === first || streams.length === 0) streams.push([]);
    streams[streams.length - 1].push(line);
  }
  return streams.map((lines) => ({ kind: "typed", lines }));
}

/** An event's type, read off its text: a recorded line need not parse (one fixture's do not). */
function typeOf(line: string): string {
  return /^\{"type":"([^"]+)"/.exec(line)?.[1] ?? "";
}

/** A JSON file as a whole response. */
export function jsonBody(file: string, status = 200): Recording {
  return { kind: "json", status, body: readFileSync(file, "utf8") };
}

/** A `fetch` answering request N with recording N (the last one again when they run out). */
export function replayFetch(recordings: Recording[]) {
  const sent: Record<string, unknown>[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    sent.push(JSON.parse(await request.text()));
    const recording = recordings[Math.min(sent.length - 1, recordings.length - 1)];
    if (recording.kind === "json") {
      return new Response(recording.body, {
        status: recording.status,
        headers: { "content-type": "application/json" },
      });
    }
    const text =
      recording.kind === "chat"
        ? `${recording.lines.map((line) => `data: ${line}\n\n`).join("")}data: [DONE]\n\n`
        : recording.lines.map((line) => `event: ${typeOf(line)}\ndata: ${line}\n\n`).join("");
    const bytes = new TextEncoder().encode(text);
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(offset, offset + 97));
        offset += 97;
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  return { fetch, sent };
}
