/**
 * Start the model's process (`serve-bench-model.ts`) and talk to it: its URL, what it served since
 * the last look, and a clean stop.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ServerCommand, ServerReport } from "./serve-bench-model.ts";

/** What the model's process served since the last `take`. */
export interface Served {
  /** Requests answered (model calls). */
  requests: number;
  /** When each text delta was handed to the socket, in `process.hrtime.bigint()` nanoseconds. */
  textDeltaSentAt: bigint[];
}

/** The model's process, running. */
export interface BenchServer {
  /** Base URL for the Anthropic SDK (`http://127.0.0.1:<port>`). */
  url: string;
  /** What was served since the last call; then it is forgotten. */
  take(): Promise<Served>;
  close(): Promise<void>;
}

/** Fork the model's process and wait until it listens. */
export async function startBenchServer(): Promise<BenchServer> {
  const child = fork(fileURLToPath(new URL("./serve-bench-model.ts", import.meta.url)), {
    execArgv: ["--import", "tsx"],
    serialization: "advanced", // bigint times cross as they are
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting: { resolve(r: ServerReport): void; reject(e: Error): void }[] = [];
  child.on("message", (m) => waiting.shift()?.resolve(m as ServerReport));
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code) => {
      for (const w of waiting.splice(0)) w.reject(new Error(`the model's process exited (${code})`));
      resolve();
    }),
  );
  const next = () => new Promise<ServerReport>((resolve, reject) => waiting.push({ resolve, reject }));
  const ask = (command: ServerCommand) => {
    const reply = next();
    child.send(command);
    return reply;
  };

  const ready = await next();
  if (ready.type !== "ready") throw new Error(`the model's process said ${ready.type} before ready`);
  return {
    url: ready.url,
    async take() {
      const report = await ask({ type: "take" });
      if (report.type !== "taken") throw new Error(`expected taken, got ${report.type}`);
      return { requests: report.requests, textDeltaSentAt: report.textDeltaSentAt };
    },
    async close() {
      child.send({ type: "close" } satisfies ServerCommand);
      await exited;
    },
  };
}
