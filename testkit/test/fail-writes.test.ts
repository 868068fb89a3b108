import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { failWrites } from "../src/fail-writes.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "fail-writes-"));
  dirs.push(dir);
  return dir;
}

describe("failWrites", () => {
  it("fails the named file's writes once its room is used, part of the crossing write first; others go through", () => {
    const dir = tempDir();
    const full = join(dir, "full.jsonl");
    const other = join(dir, "other.txt");
    const restore = failWrites({ matches: (path) => path === full, room: 4 });
    const fd = openSync(full, "a");
    expect(writeSync(fd, Buffer.from("abcdef"))).toBe(4); // the room left: 4 of 6 bytes
    expect(() => writeSync(fd, Buffer.from("ef"))).toThrow(expect.objectContaining({ code: "ENOSPC" }));
    closeSync(fd);
    expect(() => writeFileSync(full, "x")).toThrow(expect.objectContaining({ code: "ENOSPC" }));
    writeFileSync(other, "fine");
    expect(readFileSync(other, "utf8")).toBe("fine");
    restore();
    writeFileSync(full, "room again");
    expect(readFileSync(full, "utf8")).toBe("room again");
  });
});
