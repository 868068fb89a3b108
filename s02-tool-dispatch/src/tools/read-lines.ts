/**
 * Reading a text file line by line, a chunk at a time, so a file of any size costs one chunk and
 * one line of memory. What counts as text is decided here, once, for every file tool: no NUL byte
 * anywhere (git's and grep's sign of a binary file), and valid UTF-8 (`TextDecoder` with
 * `fatal: true`), or else the file is not text. Leaves out: opening the file (`openRegularFile`).
 */
import type { FileHandle } from "node:fs/promises";
import type { ToolResult } from "@harness/shared";
import { codedError } from "../dispatch.ts";

/** Bytes read from the file at a time. */
const CHUNK_BYTES = 64 * 1024;

/** What reading a file line by line came to. */
export type LinesRead =
  | { kind: "done"; lines: number } // every line was passed on
  | { kind: "binary" } // a NUL byte
  | { kind: "not_utf8" } // bytes that are not UTF-8
  | { kind: "interrupted" }; // the signal fired before the end

/** How `readLines` reads. */
export interface ReadLinesOptions {
  /** True: invalid UTF-8 ends the read (`not_utf8`). False: each bad byte reads as U+FFFD. */
  strict: boolean;
  /** Characters kept of one line; the rest of the line is dropped and the line marked cut. */
  maxLineLength: number;
  /** Checked between chunks: Ctrl-C stops a read of a big file. */
  signal?: AbortSignal;
}

/**
 * Pass each line of the file to `onLine` with its number (from 1) and whether it was cut. A final
 * newline ends the last line; it does not start another.
 * Contract: memory stays within a chunk and `maxLineLength`; stops at the first NUL byte, and at
 * the first invalid UTF-8 when `strict`.
 */
export async function readLines(
  handle: FileHandle,
  options: ReadLinesOptions,
  onLine: (text: string, line: number, cut: boolean) => void,
): Promise<LinesRead> {
  const decoder = new TextDecoder("utf-8", { fatal: options.strict });
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES); // only the bytes read into it are used
  let line = 1;
  let pending = ""; // the start of the current line
  let cut = false;
  const add = (piece: string) => {
    if (cut) return;
    pending += piece;
    if (pending.length > options.maxLineLength) {
      pending = pending.slice(0, options.maxLineLength);
      cut = true;
    }
  };
  for (let position = 0; ; ) {
    if (options.signal?.aborted) return { kind: "interrupted" };
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    position += bytesRead;
    const end = bytesRead < CHUNK_BYTES; // a regular file reads short only at its end
    const bytes = buffer.subarray(0, bytesRead);
    if (bytes.includes(0)) return { kind: "binary" };
    let text: string;
    try {
      text = decoder.decode(bytes, { stream: !end }); // the last call flushes, and checks the end
    } catch {
      return { kind: "not_utf8" };
    }
    const pieces = text.split("\n");
    for (let i = 0; i < pieces.length - 1; i++) {
      add(pieces[i]);
      onLine(pending, line++, cut);
      pending = "";
      cut = false;
    }
    add(pieces[pieces.length - 1]);
    if (end) break;
  }
  if (pending !== "" || cut) onLine(pending, line++, cut);
  return { kind: "done", lines: line - 1 };
}

/** A whole file's bytes as text, by the same rules; the BOM is kept, so the text encodes back to exactly these bytes. */
export function decodeText(bytes: Uint8Array): { kind: "text"; text: string } | { kind: "binary" | "not_utf8" } {
  if (bytes.includes(0)) return { kind: "binary" };
  try {
    return { kind: "text", text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return { kind: "not_utf8" };
  }
}

/** The coded error for a file that is not text; `refusal` says, in the tool's words, what it will not do. */
export function notTextError(kind: "binary" | "not_utf8", shown: string, size: number, refusal: string): ToolResult {
  return kind === "binary"
    ? codedError("binary_file", `${shown} is a binary file (${size} bytes); ${refusal}.`)
    : codedError("not_utf8", `${shown} is not valid UTF-8 text (${size} bytes); ${refusal}.`);
}
