/**
 * The stdio transport, with the server in a process group of its own. The SDK's
 * `StdioClientTransport` kills the one process it started; a server started through `npx`, a
 * shell script or `uv run` is a process with children, and those outlive it. Here the server is
 * started as the bash tool's commands are (s01's `runInGroup`): detached, so one signal reaches
 * every process it started, and every group still running is known, so an exiting harness takes
 * them along (`killServerGroups`, on every exit path, Ctrl-C included). The framing is the SDK's
 * (`ReadBuffer`, `serializeMessage`): one JSON-RPC message a line.
 *
 * What the server writes on stderr is kept (the last 4 000 bytes), for the line that says why it
 * did not start. Its stdin stays open until the session closes it (a client that closes it early
 * ends the server before `initialize`: anthropics/claude-code#30147).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { BoundedOutput } from "@harness/shared";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Process groups of servers running now. */
const running = new Set<number>();

/** Kill every server's process group still running, at once (the CLI's exit calls this). */
export function killServerGroups(): void {
  for (const pid of running) signalGroup(pid, "SIGKILL");
  running.clear();
}

/** How a server process starts. */
export interface GroupStdioOptions {
  command: string;
  args: string[];
  /** Its whole environment. */
  env: NodeJS.ProcessEnv;
  /** Its working directory: the project's. */
  cwd: string;
  /** Milliseconds between SIGTERM and SIGKILL when it is stopped (default 1 000). */
  killGraceMs?: number;
}

/** An MCP transport over a server process in its own process group. */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The tail of what the server wrote on stderr. */
  readonly stderr = new BoundedOutput(4_000);
  private child?: ChildProcess;
  private readonly buffer = new ReadBuffer();
  private exited = false;

  constructor(private readonly options: GroupStdioOptions) {}

  /** The server's process id (its group's too), once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The line of its stderr that says what went wrong: the last naming an error, else the last. */
  lastErrorLine(): string | undefined {
    const lines = this.stderr
      .text()
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
    return (lines.findLast((line) => /error/i.test(line)) ?? lines.at(-1))?.slice(0, 200);
  }

  /** Start the process. Contract: rejects when it cannot be started (no such command). */
  start(): Promise<void> {
    const { command, args, env, cwd } = this.options;
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
      this.child = child;
      child.once("spawn", () => {
        if (child.pid) running.add(child.pid);
        resolve();
      });
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.stdin?.on("error", () => {}); // a server that exits closes its stdin: EPIPE is expected
      child.stderr?.on("data", (chunk: Buffer) => this.stderr.write(chunk));
      child.stdout?.on("data", (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error); // a line that is not JSON-RPC: said, and the next one read
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.once("exit", () => {
        this.exited = true;
        if (child.pid) {
          signalGroup(child.pid, "SIGKILL"); // whatever it left running goes with it
          running.delete(child.pid);
        }
        this.onclose?.();
      });
    });
  }

  /** Write one message to the server's stdin. */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.exited) return reject(new Error("the server is not running"));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /**
   * Stop the server: its stdin closed and its group sent SIGTERM at once, SIGKILL after the grace.
   * Contract: resolves once it has exited (or at once, when it never started).
   */
  close(): Promise<void> {
    const child = this.child;
    if (!child?.pid || this.exited) return Promise.resolve();
    const pid = child.pid;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.stdin?.end();
    signalGroup(pid, "SIGTERM");
    const kill = setTimeout(() => signalGroup(pid, "SIGKILL"), this.options.killGraceMs ?? 1_000);
    kill.unref();
    return exited.finally(() => clearTimeout(kill));
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {} // the group is already gone
}

/** ` (its stderr: LINE)` for a transport of ours whose server wrote an error line; else nothing. */
export function lastLine(transport?: Transport): string {
  const line = transport instanceof GroupStdioTransport ? transport.lastErrorLine() : undefined;
  return line ? ` (its stderr: ${line})` : "";
}
