/**
 * The scripted model over real HTTP on 127.0.0.1, for what must cross a socket: a CLI run in a
 * child process pointed at it with ANTHROPIC_BASE_URL, or a benchmark that measures the network
 * path. A scripted cut closes the socket mid-stream, as a dropped connection does.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { ScriptedModel } from "./scripted-model.ts";

/** A running server. */
export interface ScriptedServer {
  /** The base URL to give the SDK (`http://127.0.0.1:<port>`). */
  url: string;
  /** Stop listening and close every open connection. */
  close(): Promise<void>;
}

/** Serve `model` on an ephemeral port of 127.0.0.1. */
export async function startScriptedServer(model: ScriptedModel): Promise<ScriptedServer> {
  const server = createServer(async (req, res) => {
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string") headers.set(name, value);
      }
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers,
        body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
        signal: controller.signal,
      });
      const response = await model.handle(request, controller.signal);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) return void res.end();
      const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>);
      body.on("error", () => res.destroy()); // a scripted cut: drop the connection
      body.pipe(res);
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
