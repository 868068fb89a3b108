/**
 * s08's command line run in this process on piped input (no terminal), in a fresh project with
 * numbered files to read, and a home of its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { CliIo } from "@harness/cli";
import { cleanUpAfter } from "@harness/testkit";
import { main } from "../src/main.ts";

/** A directory removed after the test (the suite, when made outside a test). */
function madeDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanUpAfter(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A directory holding part-1.txt … part-N.txt, 151 numbered lines each (`seq N000 N150`). */
export function partsProject(n = 8): string {
  const dir = madeDir("s08-cli-");
  for (let i = 1; i <= n; i++) {
    writeFileSync(join(dir, `part-${i}.txt`), `${Array.from({ length: 151 }, (_, k) => i * 1000 + k).join("\n")}\n`);
  }
  return dir;
}

/** Run the CLI on `argv` with `lines` piped in; what it printed and its exit status. */
export async function runCli(argv: string[], lines: string[] = []) {
  const home = madeDir("s08-home-");
  const stdin = new PassThrough();
  stdin.end(lines.map((line) => `${line}\n`).join(""));
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk) => {
    out += chunk;
  });
  stderr.on("data", (chunk) => {
    err += chunk;
  });
  const io: CliIo = { stdin, stdout, stderr, env: { NO_COLOR: "1", HARNESS_HOME: home }, exit: () => {} };
  const code = await main(argv, io);
  return { code, stdout: out, stderr: err };
}
