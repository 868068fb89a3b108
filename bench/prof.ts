import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { agentLoop, TraceWriter } from "@harness/s03-tracing";
import { readTurnsPrompt, writeReadTurnsFiles } from "./bench-brain.ts";
import { startBenchServer } from "./start-bench-server.ts";
const dir = mkdtempSync(join(tmpdir(), "prof-"));
writeReadTurnsFiles(dir, 9);
const server = await startBenchServer();
const client = new Anthropic({ apiKey: "bench", baseURL: server.url });
const traced = process.argv[2] === "traced";
const writer = new TraceWriter("p", join(dir, "t"), ["bench-api-key-0123456789abcdef", "bench-auth-token-0123456789abcdef"]);
for (let i = 0; i < 300; i++) {
  await agentLoop(client, [{ role: "user", content: readTurnsPrompt(9) }], { model: "scripted-model", cwd: dir, maxTurns: 15, trace: traced ? writer : undefined });
  await server.take();
}
const t = performance.now(); const c = process.cpuUsage();
for (let i = 0; i < 300; i++) {
  await agentLoop(client, [{ role: "user", content: readTurnsPrompt(9) }], { model: "scripted-model", cwd: dir, maxTurns: 15, trace: traced ? writer : undefined });
  await server.take();
}
const u = process.cpuUsage(c);
console.log(process.argv[2], ((performance.now() - t) / 3000 * 1000).toFixed(0), "µs/it wall", ((u.user + u.system) / 3000).toFixed(0), "µs/it cpu");
await server.close();
