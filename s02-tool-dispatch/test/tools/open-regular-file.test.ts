import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openRegularFile, readProjectFile, writeAt } from "../../src/tools/open-regular-file.ts";
import { tempWorkdir } from "../temp-workdir.ts";

describe("openRegularFile", () => {
  it("opens a regular file to read, with its stats", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "a.txt"), "alpha\n");
    const opened = await openRegularFile(join(cwd, "a.txt"), "a.txt", "read");
    expect(opened.ok && opened.info.size).toBe(6);
    if (opened.ok) {
      expect((await opened.handle.readFile("utf8")).toString()).toBe("alpha\n");
      await opened.handle.close();
    }
  });

  it("opens a regular file to change it in place", async () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "a.txt"), "alpha\n");
    const opened = await openRegularFile(join(cwd, "a.txt"), "a.txt", "write");
    if (!opened.ok) throw new Error(opened.reason);
    await writeAt(opened.handle, Buffer.from("ALP"), 0);
    await opened.handle.close();
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("ALPha\n");
  });

  it.each(["read", "write"] as const)("answers a pipe, a directory and a missing file as values (%s)", async (mode) => {
    const cwd = tempWorkdir();
    execFileSync("mkfifo", [join(cwd, "pipe")]);
    mkdirSync(join(cwd, "dir"));
    expect(await openRegularFile(join(cwd, "pipe"), "pipe", mode)).toEqual({
      ok: false,
      code: "not_a_file",
      reason: "pipe is a named pipe, not a regular file.",
    });
    expect(await openRegularFile(join(cwd, "dir"), "dir", mode)).toEqual({
      ok: false,
      code: "not_a_file",
      reason: "dir is a directory; use glob to list its files.",
    });
    expect(await openRegularFile(join(cwd, "nope"), "nope", mode)).toEqual({
      ok: false,
      code: "not_found",
      reason: "nope does not exist.",
    });
  });
});

describe("readProjectFile", () => {
  it("reads a regular file", () => {
    const cwd = tempWorkdir();
    writeFileSync(join(cwd, "settings.json"), "{}\n");
    expect(readProjectFile(join(cwd, "settings.json"))).toBe("{}\n");
  });

  it("refuses a named pipe at once instead of waiting for a writer", () => {
    const cwd = tempWorkdir();
    execFileSync("mkfifo", [join(cwd, "pipe")]);
    expect(() => readProjectFile(join(cwd, "pipe"))).toThrow(/is a named pipe, not a regular file/);
  });

  it("refuses a directory and a file over the limit", () => {
    const cwd = tempWorkdir();
    mkdirSync(join(cwd, "dir"));
    writeFileSync(join(cwd, "big"), "x".repeat(101));
    expect(() => readProjectFile(join(cwd, "dir"))).toThrow(/is a directory/);
    expect(() => readProjectFile(join(cwd, "big"), 100)).toThrow(/101 bytes, more than 100/);
    expect(readProjectFile(join(cwd, "big"), 101)).toHaveLength(101);
  });
});
