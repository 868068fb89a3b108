/**
 * The child process that plays the model: the scripted model with the bench brain, served over
 * real HTTP on 127.0.0.1 by `startScriptedServer`. It runs in its own process so the model's work
 * is not counted as the harness's, as with a real provider.
 *
 * It also notes, on the system-wide monotonic clock, when each text delta leaves it, and answers
 * the parent over IPC: `take` returns (and clears) those times and the number of requests served.
 */
import { ScriptedModel, startScriptedServer } from "@harness/scripted-model";
import { benchBrain } from "./bench-brain.ts";

/** A message from the parent. */
export type ServerCommand = { type: "take" } | { type: "close" };

/** A message to the parent. */
export type ServerReport =
  | { type: "ready"; url: string }
  | { type: "taken"; requests: number; textDeltaSentAt: bigint[] };

/** The scripted model, with a clock on every text delta it sends. */
class StampedModel extends ScriptedModel {
  textDeltaSentAt: bigint[] = [];

  override async handle(request: Request): Promise<Response> {
    const response = await super.handle(request);
    if (!response.body || !response.headers.get("content-type")?.includes("text/event-stream")) return response;
    const sentAt = this.textDeltaSentAt;
    // each chunk is one SSE event; it is stamped as the server's pipe pulls it to write it out
    const stamp = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (Buffer.from(chunk).includes('"text_delta"')) sentAt.push(process.hrtime.bigint());
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(stamp), { status: response.status, headers: response.headers });
  }
}

const model = new StampedModel({ brain: benchBrain });
const server = await startScriptedServer(model);
const send = (report: ServerReport) => process.send?.(report);

process.on("message", async (command: ServerCommand) => {
  if (command.type === "take") {
    send({ type: "taken", requests: model.requests.length, textDeltaSentAt: model.textDeltaSentAt });
    model.requests.length = 0;
    model.textDeltaSentAt = [];
  } else if (command.type === "close") {
    await server.close();
    process.disconnect();
  }
});
send({ type: "ready", url: server.url });
