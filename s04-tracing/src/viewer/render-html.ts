/**
 * `trace view`: a trace as one self-contained HTML file. The data is embedded in the page and
 * drawn by a small script: no server, no network fetch, and it opens from file://. The page
 * shows a timeline of turns and tool calls drawn to scale, expandable turns with their text,
 * tool input and output and the messages sent, token totals and the stop reason.
 *
 * Each turn carries the messages that were new in its request, as the trace holds them (the
 * rest were shown with earlier turns), so the page grows in step with the trace.
 */

import type { IterationRecord } from "../trace-record.ts";
import { type LoadedTrace, runPrompts, sentRequests, summariseTrace } from "./read-trace.ts";

/** The page's data: what the script draws. */
interface ViewData {
  id: string;
  summary: ReturnType<typeof summariseTrace> & { durationMs: number; runs: number };
  system: string;
  tools: string[];
  turns: Array<{
    run: number;
    turn: number;
    prompt: string;
    startMs: number;
    ttftMs: number;
    modelMs: number;
    stopReason: string | null;
    usage: { inputTokens: number; outputTokens: number };
    messageCount: number;
    newMessages: unknown[];
    content: unknown[];
    toolCalls: IterationRecord["toolCalls"];
  }>;
  events: Array<{ run: number; kind: "result" | "error"; text: string }>;
  skippedLines: number;
}

/** Build the page for a trace. */
export function renderTraceHtml(trace: LoadedTrace): string {
  const iterations = trace.records.filter((r): r is IterationRecord => r.type === "iteration");
  const t0 = iterations.length ? Date.parse(iterations[0].startedAt) : 0;
  const prompts = runPrompts(trace);
  const turns = iterations.map((it) => ({
    run: it.run,
    turn: it.turn,
    prompt: prompts.get(it.run) ?? "",
    startMs: Date.parse(it.startedAt) - t0,
    ttftMs: it.timings.ttftMs,
    modelMs: it.timings.modelMs,
    stopReason: it.response.stopReason,
    usage: it.response.usage,
    messageCount: it.request.keep + it.request.messages.length,
    newMessages: it.request.messages,
    content: it.response.content,
    toolCalls: it.toolCalls,
  }));
  const opening = sentRequests(trace).next(); // the first request: its system prompt and tools
  const first = opening.done ? undefined : opening.value.request;
  const end = Math.max(
    0,
    ...turns.map((t) => t.startMs + Math.max(t.modelMs, ...t.toolCalls.map((c) => c.startOffsetMs + c.durationMs))),
  );
  const data: ViewData = {
    id: trace.id,
    summary: { ...summariseTrace(trace), durationMs: end, runs: new Set(turns.map((t) => t.run)).size },
    system: first?.system ?? "",
    tools: (first?.tools ?? []).map((t) => t.name),
    turns,
    events: trace.records.flatMap((r): ViewData["events"] =>
      r.type === "result"
        ? [
            {
              run: r.run,
              kind: "result",
              text: `${r.result.stopReason} · ${r.result.turns} turns · ${r.result.toolCalls} tool calls`,
            },
          ]
        : r.type === "error"
          ? [{ run: r.run, kind: "error", text: r.message }]
          : [],
    ),
    skippedLines: trace.skippedLines,
  };
  // "<" escaped, so no text in the trace can close the script element
  const json = JSON.stringify(data).replace(/</g, "\\u003c");
  // one pass, so neither value is searched for the other's marker
  const values: Record<string, string> = { __TITLE__: escapeHtml(`trace ${trace.id}`), __DATA__: json };
  return PAGE.replace(/__TITLE__|__DATA__/g, (name) => values[name]);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
  :root { --model: #6b8afd; --ttft: #3451c6; --tool: #2fb380; --err: #e0554d; --muted: #6b7280; }
  body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 16px 24px; color: #111827; }
  h1 { font-size: 18px; margin: 0 0 4px; }
  .summary span { margin-right: 14px; }
  .muted { color: var(--muted); }
  #timeline { margin: 18px 0; }
  .row { display: grid; grid-template-columns: 90px 1fr; align-items: center; min-height: 22px; margin: 2px 0; }
  .track { position: relative; height: 18px; background: #f3f4f6; border-radius: 3px; }
  .bar { position: absolute; height: 8px; border-radius: 2px; min-width: 2px; }
  .bar.model { top: 1px; background: var(--model); }
  .bar.model .ttft { position: absolute; left: 0; top: 0; bottom: 0; background: var(--ttft); border-radius: 2px; }
  .bar.tool { height: 5px; background: var(--tool); }
  .bar.tool.error { background: var(--err); }
  details.turn { border: 1px solid #e5e7eb; border-radius: 6px; margin: 6px 0; padding: 4px 10px; content-visibility: auto; contain-intrinsic-size: auto 30px; }
  /* off-screen rows and turns are laid out only when scrolled to, so a long trace draws at once */
  .row { content-visibility: auto; contain-intrinsic-size: auto 22px; }
  details.turn > summary { cursor: pointer; }
  .tool-call { margin: 4px 0 4px 12px; }
  .tool-call.error .name { color: var(--err); }
  pre { background: #f9fafb; padding: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
  .stop { font-weight: 600; }
  .legend span { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; border-radius: 2px; }
</style>
</head>
<body>
<header>
  <h1 id="title"></h1>
  <div class="summary" id="summary"></div>
  <div class="muted legend">timeline to scale: <span style="background:var(--ttft)"></span>time to first token
    <span style="background:var(--model)"></span>model <span style="background:var(--tool)"></span>tool
    <span style="background:var(--err)"></span>tool error</div>
</header>
<section id="timeline"></section>
<section id="turns"></section>
<script id="trace-data" type="application/json">__DATA__</script>
<script>
(function () {
  var data = JSON.parse(document.getElementById("trace-data").textContent);
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function ms(v) { return v >= 1000 ? (v / 1000).toFixed(2) + " s" : Math.round(v) + " ms"; }
  function pct(v) { return (data.summary.durationMs > 0 ? (100 * v) / data.summary.durationMs : 0) + "%"; }
  function textOf(content) {
    return content.filter(function (b) { return b.type === "text"; }).map(function (b) { return b.text; }).join("\\n");
  }

  var s = data.summary;
  document.getElementById("title").textContent = "trace " + data.id;
  var summary = document.getElementById("summary");
  [["prompt", "“" + s.firstPrompt + "”"], ["stop-reason", s.stopReason], ["turn-count", s.turns + " turns"],
   ["tool-calls", s.toolCalls + " tool calls"], ["tokens", s.inputTokens + " in / " + s.outputTokens + " out tokens"],
   ["duration", ms(s.durationMs)]].forEach(function (pair) {
    var span = el("span", pair[0] === "stop-reason" ? "stop" : "", pair[1]);
    span.id = pair[0];
    summary.appendChild(span);
  });
  if (data.skippedLines) {
    var skipped = el("span", "muted", data.skippedLines + " unreadable line" + (data.skippedLines === 1 ? "" : "s") + " skipped");
    skipped.id = "skipped";
    summary.appendChild(skipped);
  }

  var timeline = document.getElementById("timeline");
  var turns = document.getElementById("turns");
  var fragment = document.createDocumentFragment();
  var list = document.createDocumentFragment();
  var lastRun = -1;
  data.turns.forEach(function (t) {
    var row = el("div", "row");
    row.appendChild(el("div", "muted", (data.summary.runs > 1 ? "r" + (t.run + 1) + " " : "") + "turn " + t.turn));
    var track = el("div", "track");
    var model = el("div", "bar model");
    model.style.left = pct(t.startMs);
    model.style.width = pct(t.modelMs);
    model.title = "model " + ms(t.modelMs) + " (first token after " + ms(t.ttftMs) + ")";
    var ttft = el("div", "ttft");
    ttft.style.width = t.modelMs > 0 ? Math.min(100, (100 * t.ttftMs) / t.modelMs) + "%" : "0";
    model.appendChild(ttft);
    track.appendChild(model);
    // one lane per call, so calls that ran at the same time do not hide each other
    track.style.height = Math.max(18, 10 + 6 * t.toolCalls.length) + "px";
    t.toolCalls.forEach(function (c, i) {
      var bar = el("div", "bar tool" + (c.isError ? " error" : ""));
      bar.style.top = 10 + 6 * i + "px";
      bar.style.left = pct(t.startMs + c.startOffsetMs);
      bar.style.width = pct(c.durationMs);
      bar.title = c.name + " " + ms(c.durationMs);
      track.appendChild(bar);
    });
    row.appendChild(track);
    fragment.appendChild(row);

    if (t.run !== lastRun) {
      lastRun = t.run;
      list.appendChild(el("h2", "run", "run " + (t.run + 1) + ": “" + t.prompt + "”"));
    }
    var turn = el("details", "turn");
    turn.dataset.turn = String(t.turn);
    turn.appendChild(el("summary", "", "turn " + t.turn + " · " + t.stopReason + " · " + t.usage.inputTokens + " in / " +
      t.usage.outputTokens + " out · model " + ms(t.modelMs) + (t.toolCalls.length ? " · " + t.toolCalls.length + " tool calls" : "")));
    var text = textOf(t.content);
    if (text) turn.appendChild(el("pre", "text", text));
    t.toolCalls.forEach(function (c) {
      var call = el("details", "tool-call" + (c.isError ? " error" : ""));
      var head = el("summary");
      head.appendChild(el("span", "name", c.name));
      head.appendChild(el("span", "muted", " " + ms(c.durationMs) + (c.isError ? " · error" : "")));
      call.appendChild(head);
      call.addEventListener("toggle", function once() {
        call.removeEventListener("toggle", once);
        call.appendChild(el("div", "muted", "input"));
        call.appendChild(el("pre", "input", JSON.stringify(c.input, null, 2)));
        call.appendChild(el("div", "muted", "result"));
        call.appendChild(el("pre", "result", c.result));
      });
      turn.appendChild(call);
    });
    var sent = el("details", "messages");
    sent.appendChild(el("summary", "muted", "request: " + t.messageCount + (t.messageCount === 1 ? " message (" : " messages (") + t.newMessages.length + " new)"));
    sent.addEventListener("toggle", function once() {
      sent.removeEventListener("toggle", once);
      sent.appendChild(el("pre", "", JSON.stringify(t.newMessages, null, 2)));
    });
    turn.appendChild(sent);
    list.appendChild(turn);
  });
  data.events.forEach(function (e) {
    list.appendChild(el("div", e.kind === "error" ? "event error" : "event muted", "run " + (e.run + 1) + " → " + e.text));
  });
  timeline.appendChild(fragment);
  turns.appendChild(list);
  document.body.dataset.rendered = "true";
})();
</script>
</body>
</html>
`;
