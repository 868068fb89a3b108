import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isRunning, lockSession } from "../src/store/lock-session.ts";
import { tempDir } from "./transcript-file.ts";

/** Resolve once `condition` holds (polled; at most 30 s). */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 30_000) throw new Error("waited 30 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const LOCK_SESSION = join(import.meta.dirname, "..", "src", "store", "lock-session.ts");

/** The pid of a process that has exited. */
function deadPid(): number {
  const pid = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" }).stdout.trim();
  expect(isRunning(Number(pid))).toBe(false);
  return Number(pid);
}

describe("lockSession", () => {
  it("is held by one holder at a time, this process included, and free again once released", () => {
    const path = join(tempDir(), "s.lock");
    const first = lockSession(path);
    expect(first.kind).toBe("held");
    expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
    expect(lockSession(path)).toEqual({ kind: "in_use", pid: process.pid }); // a second writer, even here
    if (first.kind === "held") first.release();
    expect(existsSync(path)).toBe(false);
    expect(lockSession(path).kind).toBe("held");
  });

  it("names the running process that holds it", async () => {
    const path = join(tempDir(), "s.lock");
    const sleeper = spawn("sleep", ["30"]);
    try {
      writeFileSync(path, `${sleeper.pid}\n`);
      expect(lockSession(path)).toEqual({ kind: "in_use", pid: sleeper.pid });
      expect(readFileSync(path, "utf8")).toBe(`${sleeper.pid}\n`);
    } finally {
      sleeper.kill("SIGKILL");
    }
  });

  it("takes over the lock of a process that no longer runs, leaving nothing else behind", () => {
    const dir = tempDir();
    const path = join(dir, "s.lock");
    writeFileSync(path, `${deadPid()}\n`);
    expect(lockSession(path).kind).toBe("held");
    expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
    expect(readdirSync(dir)).toEqual(["s.lock"]);
  });

  it.each([
    ["garbage", "not a pid\n"],
    ["nothing", ""],
    ["a pid that is not one", "-3\n"],
  ])("takes over a lock that holds %s: no running process holds it", (_, held) => {
    const dir = tempDir();
    const path = join(dir, "s.lock");
    writeFileSync(path, held);
    expect(lockSession(path).kind).toBe("held");
    expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
    expect(readdirSync(dir)).toEqual(["s.lock"]);
  });

  it("deletes the right to clear a stale lock that a process which died clearing it left behind", () => {
    const dir = tempDir();
    const path = join(dir, "s.lock");
    const dead = deadPid();
    writeFileSync(path, `${dead}\n`);
    writeFileSync(`${path}.${dead}.dead`, `${deadPid()}\n`); // its clearer died before it was done
    expect(lockSession(path).kind).toBe("held");
    expect(readdirSync(dir)).toEqual(["s.lock"]);
  });

  it("leaves the right of a clearer that still runs alone, and the lock with it", async () => {
    const dir = tempDir();
    const path = join(dir, "s.lock");
    const dead = deadPid();
    const clearer = spawn("sleep", ["30"]);
    try {
      writeFileSync(path, `${dead}\n`);
      writeFileSync(`${path}.${dead}.dead`, `${clearer.pid}\n`);
      expect(lockSession(path)).toEqual({ kind: "in_use", pid: dead });
      expect(readFileSync(path, "utf8")).toBe(`${dead}\n`);
    } finally {
      clearer.kill("SIGKILL");
    }
  });

  it("releases only its own lock", () => {
    const path = join(tempDir(), "s.lock");
    const lock = lockSession(path);
    writeFileSync(path, "1\n"); // someone else's now (pid 1 always runs)
    if (lock.kind === "held") lock.release();
    expect(readFileSync(path, "utf8")).toBe("1\n");
  });

  it.each([
    ["free", () => undefined],
    ["left by a process that died", () => `${deadPid()}\n`],
    ["holding garbage", () => "not a pid\n"],
  ])("goes to exactly one of eight processes that try at once when %s", { timeout: 60_000 }, async (_, before) => {
    const dir = tempDir();
    const path = join(dir, "s.lock");
    const go = join(dir, "go");
    const left = before();
    if (left) writeFileSync(path, left);
    const done = join(dir, "done");
    const script = `
      import { existsSync } from "node:fs";
      import { lockSession } from ${JSON.stringify(LOCK_SESSION)};
      const wait = async (file) => { while (!existsSync(file)) await new Promise((r) => setTimeout(r, 1)); };
      console.log("ready");
      await wait(${JSON.stringify(go)});
      console.log(lockSession(${JSON.stringify(path)}).kind);
      await wait(${JSON.stringify(done)}); // hold it until every process has tried`;
    const children = Array.from({ length: 8 }, () => {
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      const said = { out: "" };
      child.stdout.on("data", (chunk) => {
        said.out += chunk;
      });
      return { child, said, closed: new Promise((resolve) => child.on("close", resolve)) };
    });
    const lines = () => children.map(({ said }) => said.out.trim().split("\n"));
    await until(() => lines().every((l) => l.length === 1 && l[0] === "ready"));
    writeFileSync(go, "");
    await until(() => lines().every((l) => l.length === 2));
    writeFileSync(done, "");
    await Promise.all(children.map((c) => c.closed));
    const kinds = lines().map((l) => l[1]);
    expect(kinds.filter((k) => k === "held")).toHaveLength(1);
    expect(kinds.filter((k) => k === "in_use")).toHaveLength(7);
  });
});
