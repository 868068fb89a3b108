/**
 * One run of the bash tool under a flood, alone in a fresh process so its memory is its own:
 * `node --import tsx bash-flood-child.ts flood|devnull|bare <bytes>` prints one JSON line with the
 * wall time, the peak RSS growth of this process, and what the tool returned. `flood` is runBash on
 * the flood; `devnull` is runBash on the same command writing to /dev/null; `bare` reads the
 * flood's pipe with Node and throws every chunk away (what any reader of the output pays).
 *
 * Peak RSS: `process.resourceUsage().maxRSS` when the run raised it, else the highest RSS sampled
 * every 2 ms during the run (the process's earlier peak, from loading modules, may be higher than
 * anything the run reached); growth is that peak minus the RSS just before the run.
 */
import { spawn } from "node:child_process";
import { runBash, type ToolResult } from "@harness/shared";

const [mode, bytesArg] = process.argv.slice(2);
const bytes = Number(bytesArg ?? 2 ** 30);
const flood = `head -c ${bytes} /dev/zero | tr '\\0' a`;
const command = mode === "devnull" ? `${flood} > /dev/null` : flood;

const baseline = process.memoryUsage().rss;
const maxBefore = process.resourceUsage().maxRSS * 1024;
let sampled = baseline;
const sampler = setInterval(() => {
  sampled = Math.max(sampled, process.memoryUsage().rss);
}, 2);
const started = performance.now();
const result =
  mode === "bare" ? await barePipe(flood) : await runBash(command, { cwd: process.cwd(), timeoutMs: 600_000 });
const ms = performance.now() - started;
clearInterval(sampler);
sampled = Math.max(sampled, process.memoryUsage().rss);
const maxAfter = process.resourceUsage().maxRSS * 1024;
const peak = maxAfter > maxBefore ? maxAfter : sampled;
const cut = /\[\.\.\. (\d+) bytes of output cut \.\.\.\]/.exec(result.content);

process.stdout.write(
  `${JSON.stringify({
    mode,
    ms,
    rssGrowthBytes: peak - baseline,
    isError: result.isError,
    resultChars: result.content.length,
    cutBytes: cut ? Number(cut[1]) : 0,
    tail: result.content.slice(-40),
  })}\n`,
);

/** Read the command's stdout and keep nothing but a byte count. */
function barePipe(command: string): Promise<ToolResult> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { stdio: ["ignore", "pipe", "ignore"] });
    let total = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      total += chunk.length;
    });
    child.on("close", (code) =>
      resolve({ content: `[... ${total} bytes of output cut ...]\n[exit code ${code}]`, isError: code !== 0 }),
    );
  });
}
