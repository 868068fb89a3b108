/**
 * The recorded Messages API responses in `fixtures/anthropic/` (see its README): readers for the
 * JSON bodies and the SSE chunk files, and a `fetch` that replays a chunk file as a real stream.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "@anthropic-ai/sdk/resources/messages";

/** Where the recordings live. */
export const FIXTURES_DIR = join(import.meta.dirname, "..", "fixtures", "anthropic");

/** Names (without extension) of the recorded non-streaming bodies. */
export const jsonFixtures = readdirSync(FIXTURES_DIR)
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.replace(/\.json$/, ""));

/** Names (without extension) of the recorded streams. */
export const chunkFixtures = readdirSync(FIXTURES_DIR)
  .filter((f) => f.endsWith(".chunks.txt"))
  .map((f) => f.replace(/\.chunks\.txt$/, ""));

/** A recorded non-streaming body, parsed. */
export function readJsonFixture(name: string): Message {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, `${name}.json`), "utf8")) as Message;
}

/** A recorded stream as SSE text: each `data:` line under the event type it carries. */
export function readChunksAsSse(name: string): string {
  return readFileSync(join(FIXTURES_DIR, `${name}.chunks.txt`), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join("");
}

/** A `fetch` for the SDK that answers every request with the recorded stream `name`, in small pieces. */
export function replayFetch(name: string): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async () => {
    const bytes = new TextEncoder().encode(readChunksAsSse(name));
    let offset = 0;
    // odd-sized pieces, so events and UTF-8 characters straddle reads as they do on a socket
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(offset, offset + 97));
        offset += 97;
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}
