import { writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeText, type ReadLinesOptions, readLines } from "../../src/tools/read-lines.ts";
import { tempWorkdir } from "../temp-workdir.ts";

/** Every line readLines passes on for a file with `content`, and what the read came to. */
async function linesOf(content: string | Buffer, options: Partial<ReadLinesOptions> = {}) {
  const file = join(tempWorkdir(), "f");
  writeFileSync(file, content);
  const handle = await open(file, "r");
  const lines: [string, number, boolean][] = [];
  try {
    const read = await readLines(
      handle,
      { strict: true, maxLineLength: 1000, signal: new AbortController().signal, ...options },
      (text, n, cut) => lines.push([text, n, cut]),
    );
    return { read, lines };
  } finally {
    await handle.close();
  }
}

describe("readLines", () => {
  it("numbers the lines; a final newline ends the last line and starts none", async () => {
    expect(await linesOf("a\nb\n")).toEqual({
      read: { kind: "done", lines: 2 },
      lines: [
        ["a", 1, false],
        ["b", 2, false],
      ],
    });
    expect((await linesOf("a\nb")).lines.at(-1)).toEqual(["b", 2, false]);
    expect(await linesOf("")).toEqual({ read: { kind: "done", lines: 0 }, lines: [] });
  });

  it("joins a line split between chunks, and a character split between chunks", async () => {
    // 64 KiB chunks: the é's two bytes straddle the first boundary
    const content = `${"x".repeat(65_535)}é and on\nnext\n`;
    const { read, lines } = await linesOf(content, { maxLineLength: 100_000 });
    expect(read).toEqual({ kind: "done", lines: 2 });
    expect(lines[0]).toEqual([`${"x".repeat(65_535)}é and on`, 1, false]);
  });

  it("keeps maxLineLength characters of a long line and marks it cut, holding no more", async () => {
    const { lines } = await linesOf(`${"y".repeat(200_000)}\nshort\n`, { maxLineLength: 10 });
    expect(lines).toEqual([
      ["yyyyyyyyyy", 1, true],
      ["short", 2, false],
    ]);
  });

  it("stops at a NUL byte, and at bytes that are not UTF-8 when strict", async () => {
    expect((await linesOf(Buffer.from([0x61, 0x0a, 0x00]))).read).toEqual({ kind: "binary" });
    expect((await linesOf(Buffer.from("caf\xe9\n", "latin1"))).read).toEqual({ kind: "not_utf8" });
    expect((await linesOf(Buffer.from([0x61, 0xc3]))).read).toEqual({ kind: "not_utf8" }); // cut off mid-character
  });

  it("reads bytes that are not UTF-8 as U+FFFD when not strict", async () => {
    const { read, lines } = await linesOf(Buffer.from("caf\xe9\n", "latin1"), { strict: false });
    expect(read).toEqual({ kind: "done", lines: 1 });
    expect(lines).toEqual([["caf\uFFFD", 1, false]]);
  });

  it("stops when the signal has fired", async () => {
    expect((await linesOf("a\n", { signal: AbortSignal.abort() })).read).toEqual({ kind: "interrupted" });
  });
});

describe("decodeText", () => {
  it("keeps the BOM, so the text encodes back to the same bytes", () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("a\r\nb")]);
    const decoded = decodeText(bytes);
    expect(decoded).toEqual({ kind: "text", text: "\uFEFFa\r\nb" });
    expect(Buffer.from(decoded.kind === "text" ? decoded.text : "")).toEqual(bytes);
  });

  it("calls a NUL byte binary, and bytes that are not UTF-8 not_utf8", () => {
    expect(decodeText(Buffer.from([0x61, 0x00]))).toEqual({ kind: "binary" });
    expect(decodeText(Buffer.from([0xff]))).toEqual({ kind: "not_utf8" });
  });
});
