import { describe, expect, it } from "vitest";
import { BoundedOutput } from "../src/bounded-output.ts";

/** The reference: keep every byte, then cut the middle out. */
function reference(chunks: Uint8Array[], maxBytes: number): string {
  const all = Buffer.concat(chunks);
  const decode = (b: Uint8Array) => new TextDecoder().decode(b).replaceAll("\0", "\uFFFD");
  if (all.length <= maxBytes) return decode(all);
  const head = all.subarray(0, Math.ceil(maxBytes / 2));
  const tail = all.subarray(all.length - Math.floor(maxBytes / 2));
  const cut = all.length - head.length - tail.length;
  if (tail.length === 0) return decode(head);
  return `${decode(head)}\n\n[... ${cut} bytes of output cut ...]\n\n${decode(tail)}`;
}

/** A small deterministic random generator (the same chunks on every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const bytes = (text: string) => Buffer.from(text, "utf8");

describe("BoundedOutput", () => {
  it("keeps everything, with no marker, while under the budget", () => {
    const out = new BoundedOutput(100);
    out.write(bytes("hello "));
    out.write(bytes("world"));
    expect(out.text()).toBe("hello world");
    expect(out.totalBytes).toBe(11);
    expect(out.cutBytes).toBe(0);
  });

  it("keeps everything when exactly the budget is written", () => {
    const out = new BoundedOutput(10);
    out.write(bytes("0123456789"));
    expect(out.text()).toBe("0123456789");
    expect(out.cutBytes).toBe(0);
  });

  it("keeps the head and the tail and says how many bytes were cut", () => {
    const out = new BoundedOutput(10);
    out.write(bytes("START-"));
    out.write(bytes("x".repeat(1000)));
    out.write(bytes("-END"));
    expect(out.text()).toBe(`START\n\n[... ${1010 - 10} bytes of output cut ...]\n\nx-END`);
    expect(out.totalBytes).toBe(1010);
    expect(out.cutBytes).toBe(1000);
  });

  it("keeps the tail right when one chunk is larger than the ring", () => {
    const out = new BoundedOutput(8);
    out.write(bytes("abcd"));
    out.write(bytes("efghijklmnop"));
    expect(out.text()).toBe("abcd\n\n[... 8 bytes of output cut ...]\n\nmnop");
  });

  it("splits an odd budget with the extra byte in the head", () => {
    const out = new BoundedOutput(5);
    out.write(bytes("abcdefghij"));
    expect(out.text()).toBe("abc\n\n[... 5 bytes of output cut ...]\n\nij");
  });

  it("keeps only the head with a budget of one byte", () => {
    const out = new BoundedOutput(1);
    out.write(bytes("abc"));
    expect(out.text()).toBe("a");
    expect(out.cutBytes).toBe(2);
  });

  it("keeps nothing but the count with a budget of zero", () => {
    const out = new BoundedOutput(0);
    out.write(bytes("abc"));
    expect(out.text()).toBe("");
    expect(out.totalBytes).toBe(3);
  });

  it("ignores empty writes", () => {
    const out = new BoundedOutput(4);
    out.write(new Uint8Array(0));
    out.write(bytes("ab"));
    out.write(new Uint8Array(0));
    expect(out.text()).toBe("ab");
  });

  it("matches the keep-everything reference for many random chunk sizes", () => {
    const next = random(42);
    for (let round = 0; round < 300; round++) {
      const maxBytes = Math.floor(next() * 40);
      const chunks: Uint8Array[] = [];
      const out = new BoundedOutput(maxBytes);
      const count = Math.floor(next() * 12);
      for (let i = 0; i < count; i++) {
        const length = Math.floor(next() * 30);
        const chunk = Buffer.from(Array.from({ length }, (_, j) => 97 + ((round + i + j) % 26)));
        chunks.push(chunk);
        out.write(chunk);
      }
      expect(out.text(), `round ${round}, maxBytes ${maxBytes}`).toBe(reference(chunks, maxBytes));
    }
  });

  it("decodes invalid UTF-8 as replacement characters, never throwing", () => {
    const out = new BoundedOutput(100);
    out.write(Uint8Array.from([0x61, 0xff, 0xfe, 0x62, 0xc3]));
    expect(out.text()).toBe("a\uFFFD\uFFFDb\uFFFD");
  });

  it("shows NUL bytes as replacement characters", () => {
    const out = new BoundedOutput(100);
    out.write(Uint8Array.from([0x61, 0x00, 0x62]));
    expect(out.text()).toBe("a\uFFFDb");
    expect(out.text()).not.toContain("\0");
  });

  it("keeps a multi-byte character whole when it straddles two writes under the budget", () => {
    const euro = bytes("€"); // three bytes
    const out = new BoundedOutput(100);
    out.write(euro.subarray(0, 1));
    out.write(euro.subarray(1));
    expect(out.text()).toBe("€");
  });

  it("keeps a character whole across the head and tail when nothing was cut", () => {
    const out = new BoundedOutput(4); // head 2 bytes, tail 2 bytes
    out.write(bytes("a€")); // 1 + 3 bytes: the euro sign straddles head and tail
    expect(out.text()).toBe("a€");
  });

  it("holds at most its budget however much is written", () => {
    const out = new BoundedOutput(1000);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 200; i++) out.write(chunk);
    expect(out.totalBytes).toBe(200 * 64 * 1024);
    expect(out.text().length).toBeLessThan(1100);
  });
});
