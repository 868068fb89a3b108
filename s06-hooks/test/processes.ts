/**
 * Checks on real processes for the runner's tests: whether a process or a whole process group
 * still runs, read from /proc (zombies count as gone: they run nothing more), and a poll.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";

/** True while `pid` still runs. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
  if (!existsSync("/proc/self/stat")) return true; // no /proc: trust kill(pid, 0)
  try {
    return !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false; // it went away between the two checks
  }
}

/** True while any process of the group `pgid` still runs (zombies aside). */
export function isGroupRunning(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
  if (!existsSync("/proc/self/stat")) return true;
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .some((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return Number(pgrp) === pgid && state !== "Z" && state !== "X";
      } catch {
        return false;
      }
    });
}

/** Wait for a condition, polling; generous, since these machines are shared and slow at times. */
export async function until(condition: () => boolean, timeoutMs = 8000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}
