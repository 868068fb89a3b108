/** Run a command to its exit and time it: the wall time a person waiting on it would see. */
import { spawn } from "node:child_process";

/** How a timed command went. */
export interface TimedCommand {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawn `command` with `args` (no shell) in `cwd`, wait for it to close, and time it. */
export function timeCommand(command: string, args: string[], cwd: string): Promise<TimedCommand> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    child.on("error", (error) =>
      resolve({ ms: performance.now() - started, code: null, stdout, stderr: error.message }),
    );
    child.on("close", (code) => resolve({ ms: performance.now() - started, code, stdout, stderr }));
  });
}
