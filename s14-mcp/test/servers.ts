/**
 * What the tests start servers with: the test server (fixtures/test-server.ts, over stdio or on
 * 127.0.0.1), the reference servers from node_modules, a server that never answers, and checks
 * that a process is gone. The HTTP server a test starts is killed, with its group, when the test ends.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { cleanUpAfter, until } from "@harness/testkit";
import type { ServerConfig } from "../src/config/mcp-config.ts";

/** The length of the test server's PNG in base64. */
export const PIXEL_LENGTH = 96;

/** The test server's file. */
export const TEST_SERVER = join(import.meta.dirname, "fixtures", "test-server.ts");
const tsx = createRequire(import.meta.url).resolve("tsx");

/** `.mcp.json`'s entry for the test server over stdio. */
export function testServer(env: Record<string, string> = {}): {
  command: string;
  args: string[];
  env: Record<string, string>;
} {
  return { command: process.execPath, args: ["--import", tsx, TEST_SERVER], env };
}

/** The entry of a server that starts and never answers `initialize` (it writes its pid first). */
export function silentServer(pidFile: string): { command: string; args: string[] } {
  const script = `require("fs").appendFileSync(${JSON.stringify(pidFile)}, process.pid + "\\n"); setInterval(() => {}, 1000);`;
  return { command: process.execPath, args: ["-e", script] };
}

/** The entry of a reference server, run from node_modules (no network). */
export function referenceServer(name: "everything" | "filesystem", ...args: string[]) {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve(`@modelcontextprotocol/server-${name}/package.json`);
  return { command: process.execPath, args: [join(dirname(pkg), "dist", "index.js"), ...args], env: {} };
}

/** A server configuration for `McpServers` directly. */
export function config(
  name: string,
  entry: { command: string; args: string[]; env?: Record<string, string> },
): ServerConfig {
  return {
    type: "stdio",
    name,
    command: entry.command,
    args: entry.args,
    env: entry.env ?? {},
    file: "test",
    dir: process.cwd(),
    source: "user",
  };
}

/** Start the test server over Streamable HTTP on 127.0.0.1; resolves with its URL. */
export async function startHttpServer(env: Record<string, string> = {}): Promise<{ url: string; pid: number }> {
  const { command, args } = testServer();
  const child: ChildProcess = spawn(command, [...args, "--http"], {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "pipe", "inherit"],
  });
  // killed with its group when the test ends (a hook this module registered would run for one file only)
  cleanUpAfter(() => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {} // already gone
  });
  let out = "";
  child.stdout?.on("data", (chunk) => {
    out += chunk;
  });
  await until("the HTTP server's URL", () => out.includes("\n"));
  return { url: out.trim(), pid: child.pid ?? 0 };
}

/** The pids written to a pid file so far. */
export function pidsIn(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
}

/** True while a process with this pid runs. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Wait until none of the pids is running (a process told to stop takes a moment); false after `timeoutMs`. */
export async function allGone(pids: readonly number[], timeoutMs = 5_000): Promise<boolean> {
  for (let waited = 0; waited < timeoutMs; waited += 20) {
    if (pids.every((pid) => !isRunning(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return pids.every((pid) => !isRunning(pid));
}
