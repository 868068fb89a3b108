/**
 * The tracer's terminal output: `trace list` as a table, `trace show` as a timeline of runs,
 * turns and tool calls with their durations, tokens and stop reasons, each turn with its
 * request's number (`#N`), which `trace show --request N` prints whole.
 */
import { preview } from "@harness/cli";
import { type LoadedTrace, runPrompts, type TraceSummary } from "./read-trace.ts";

/** `trace list`: one line a trace, newest first. */
export function formatList(traces: TraceSummary[]): string {
  if (traces.length === 0) return 'No traces yet. Run a chapter with --trace (e.g. pnpm s04 --trace "...").';
  const rows = traces.map((t) => [
    t.id,
    t.startedAt ? t.startedAt.replace("T", " ").slice(0, 19) : "-",
    t.stopReason,
    String(t.turns),
    `${t.inputTokens}/${t.outputTokens}`,
    clip(t.firstPrompt.replace(/\s+/g, " "), 48),
  ]);
  const header = ["ID", "STARTED (UTC)", "STOP", "TURNS", "TOKENS IN/OUT", "FIRST PROMPT"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows]
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  "))
    .join("\n");
}

/** `trace show`: the whole trace as a readable timeline. */
export function formatShow(trace: LoadedTrace): string {
  const out: string[] = [`trace ${trace.id}  (${trace.path})`];
  const skipped = trace.skippedLines;
  if (skipped > 0)
    out.push(`  (${skipped} unreadable line${skipped === 1 ? "" : "s"} skipped: a run was cut mid-write)`);
  const prompts = runPrompts(trace);
  let run = -1;
  for (const record of trace.records) {
    if (record.type === "iteration") {
      if (record.run !== run) {
        run = record.run;
        out.push("", `run ${run + 1} · "${clip((prompts.get(run) ?? "").replace(/\s+/g, " "), 80)}"`);
      }
      const t = record.timings;
      const usage = record.response.usage;
      out.push(
        `  turn ${record.turn}  #${record.request.n}  ${record.startedAt.slice(11, 23)}  ttft ${ms(t.ttftMs)} · model ${ms(t.modelMs)}` +
          `${record.toolCalls.length ? ` · tools ${ms(t.toolMs)}` : ""} · ${usage.inputTokens} in / ${usage.outputTokens} out · ${record.response.stopReason}`,
      );
      const text = record.response.content
        .filter((b) => b.type === "text")
        .map((b) => (b as { text: string }).text)
        .join("\n");
      for (const line of text ? preview(text, 3) : []) out.push(`    │ ${line}`);
      for (const call of record.toolCalls) {
        const input = typeof call.input.command === "string" ? call.input.command : JSON.stringify(call.input);
        out.push(
          `    ${call.isError ? "✗" : "✓"} ${call.name} ${clip(input.replace(/\s+/g, " "), 70)}  ${ms(call.durationMs)}`,
        );
        for (const line of preview(call.result, 2)) out.push(`        ${line}`);
      }
    } else if (record.type === "error") {
      out.push(`  ✗ turn ${record.turn}  #${record.request.n}  failed: ${record.message}`);
    } else {
      const r = record.result;
      out.push(
        `  → ${r.stopReason} · ${r.turns} turn${r.turns === 1 ? "" : "s"} · ${r.toolCalls} tool call${r.toolCalls === 1 ? "" : "s"}` +
          ` · ${r.usage.inputTokens} in / ${r.usage.outputTokens} out tokens`,
      );
    }
  }
  const last = trace.records.at(-1);
  if (last && last.type === "iteration") out.push("  (no result record: the run was still going or was killed)");
  return out.join("\n");
}

function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
