/**
 * One run of the bash tool under a flood, alone in a fresh process so its memory is its own:
 * `node --import tsx bash-flood-child.ts flood|devnull <bytes>` prints one JSON line with the wall
 * time, the peak RSS growth of this process, and what the tool returned.
 *
 * Peak RSS: `process.resourceUsage().maxRSS` when the run raised it, else the highest RSS sampled
 * every 2 ms during the run (the process's earlier peak, from loading modules, may be higher than
 * anything the run reached); growth is that peak minus the RSS just before the run.
 */
import { runBash } from "@harness/shared";

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
const result = await runBash(command, { cwd: process.cwd(), timeoutMs: 600_000 });
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
