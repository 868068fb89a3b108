/**
 * What s07's CLI tests need beyond testkit's runner: the transcripts a run leaves, found, and the
 * process a running CLI started through its bash tool, found (to stop the CLI in the middle of it).
 */
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { cleanUpAfter, type RunningCli, until } from "@harness/testkit";
import { sessionsDir } from "../src/store/sessions-dir.ts";

/** Kill a whole process group, if it still runs. */
function killGroup(pgid: number | undefined): void {
  try {
    if (pgid) process.kill(-pgid, "SIGKILL");
  } catch {} // already gone
}

/** The transcripts (and locks) of the project in `cwd`, as file names, sorted. */
export function transcripts(cwd: string, env: NodeJS.ProcessEnv): string[] {
  try {
    return readdirSync(sessionsDir(cwd, env)).sort();
  } catch {
    return [];
  }
}

/** The path of the only transcript of `cwd`'s project (fails when there is not exactly one). */
export function onlyTranscript(cwd: string, env: NodeJS.ProcessEnv): string {
  const files = transcripts(cwd, env).filter((name) => name.endsWith(".jsonl"));
  if (files.length !== 1) throw new Error(`expected one transcript, found ${files.join(", ") || "none"}`);
  return join(sessionsDir(cwd, env), files[0]);
}

/** The processes running now (zombies left out). */
function processes(): Array<{ pid: number; ppid: number; pgid: number; args: string }> {
  const out = execFileSync("ps", ["-A", "-o", "pid=,ppid=,pgid=,stat=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && !m[4].startsWith("Z"))
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), args: m[5] }));
}

/** The process group of the command `cli` started whose line matches `pattern`, once it runs; killed after the test. */
export async function toolProcess(cli: Pick<RunningCli, "child">, pattern: RegExp): Promise<number> {
  let found: { pgid: number } | undefined;
  await until(`${pattern} to run`, () => {
    found = processes().find((p) => p.ppid === cli.child.pid && pattern.test(p.args));
    return found !== undefined;
  });
  const pgid = (found as { pgid: number }).pgid;
  cleanUpAfter(() => killGroup(pgid));
  return pgid;
}
