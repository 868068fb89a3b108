/**
 * What handing work to children buys (s12). First, time: a parent whose one turn asks for two
 * searches, each child two model calls of `DELAY_MS` each (the scripted model waits before it
 * answers, as a real one does), run three ways through s12's loop: one task call alone, two task
 * calls at once (the task tool as s12 has it, `concurrencySafe`), and the same two one after the
 * other (the tool marked unsafe, so s02 runs them in turn). Two at once should take about as long
 * as one.
 *
 * Then context: a search over `FILES` files with a TODO each, done by the parent itself (a grep in
 * its own history) and handed to a child (only its report comes back). The parent's last request
 * is compared: its messages' bytes, and the scripted model's estimate of its input tokens.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageCreateParams, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ALL_TOOLS, dispatch, toolMap } from "@harness/s02-tool-dispatch";
import { sendStreamed } from "@harness/s03-streaming";
import { agentLoop, GENERAL_PURPOSE, Subagents, TokenBudget } from "@harness/s12-subagents";
import { reply, ScriptedModel, type ScriptStep, textReply, toolUse } from "@harness/scripted-model";
import { atMost, type Figure, type Section, summarize } from "../section.ts";

/** How the subagents scenario runs. */
export interface SubagentsOptions {
  warmup: number;
  reps: number;
}

/** Milliseconds the scripted model waits before each child's answer. */
const DELAY_MS = 150;
/** Files the search runs over, one TODO each. */
const FILES = 40;
const MODEL = "claude-sonnet-5-5";

/** The text of a request's first message: whose conversation it is. */
function firstText(body: MessageCreateParams): string {
  const first = body.messages[0] as MessageParam;
  if (typeof first.content === "string") return first.content;
  return first.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}

/** A model that answers each conversation (known by its first message) from its own steps. */
function conversations(steps: Record<string, ScriptStep[]>): ScriptedModel {
  const queues = new Map(Object.entries(steps).map(([start, list]) => [start, [...list]]));
  return new ScriptedModel({
    brain: (request) => queues.get(firstText(request))?.shift() ?? textReply("(nothing left)"),
  });
}

/** The children of one run, on `model`, their task tool unsafe to run at once when `oneByOne`. */
function children(model: ScriptedModel, cwd: string, oneByOne: boolean) {
  const tasks = new Subagents({
    loop: agentLoop,
    send: sendStreamed(model.client({ maxRetries: 0 }), 1),
    model: MODEL,
    cwd,
    tools: toolMap(ALL_TOOLS),
    definitions: [GENERAL_PURPOSE],
    maxTurns: 8,
    maxTokens: 200_000,
    budget: new TokenBudget(),
  });
  const tool = oneByOne ? { ...tasks.tool(), concurrencySafe: false } : tasks.tool();
  return { tools: toolMap([...ALL_TOOLS, tool]), runCall: tasks.around(dispatch) };
}

/** One parent run asking for `n` searches in one turn; its wall time in ms. */
async function delegate(cwd: string, n: number, oneByOne: boolean): Promise<number> {
  const prompts = Array.from({ length: n }, (_, i) => `Search part ${i + 1} for TODO`);
  const child: ScriptStep[] = [
    reply([toolUse("grep", { pattern: "TODO" })], { delayMs: DELAY_MS }),
    textReply("Found them.", { delayMs: DELAY_MS }),
  ];
  const model = conversations({
    "Search the project": [
      reply(prompts.map((prompt, i) => toolUse("task", { description: `part ${i + 1}`, prompt }))),
      textReply("Both reported."),
    ],
    ...Object.fromEntries(prompts.map((prompt) => [prompt, [...child]])),
  });
  const { tools, runCall } = children(model, cwd, oneByOne);
  const started = performance.now();
  const result = await agentLoop(
    sendStreamed(model.client({ maxRetries: 0 }), 1),
    [{ role: "user", content: "Search the project" }],
    { model: MODEL, cwd, tools, runCall },
  );
  if (result.stopReason !== "final_answer") throw new Error(`the parent ended ${result.stopReason}`);
  return performance.now() - started;
}

/** The parent's last request, searching itself or through a child: its messages' bytes and estimated tokens. */
async function lastRequest(cwd: string, through: "itself" | "child") {
  const ask = "Find every TODO in this project";
  const search = "Find every TODO comment in this project; report how many and in which folder.";
  const model = conversations(
    through === "itself"
      ? { [ask]: [reply([toolUse("grep", { pattern: "TODO" })]), textReply(`${FILES} TODOs, all in src/.`)] }
      : {
          [ask]: [reply([toolUse("task", { description: "Find the TODOs", prompt: search })]), textReply("Reported.")],
          [search]: [reply([toolUse("grep", { pattern: "TODO" })]), textReply(`${FILES} TODO comments, all in src/.`)],
        },
  );
  const { tools, runCall } = children(model, cwd, false);
  const messages: MessageParam[] = [{ role: "user", content: ask }];
  const result = await agentLoop(sendStreamed(model.client({ maxRetries: 0 }), 1), messages, {
    model: MODEL,
    cwd,
    tools,
    runCall,
  });
  const parents = model.requests.filter((r) => firstText(r.body) === ask);
  const last = parents.at(-1)?.body.messages ?? [];
  return { bytes: JSON.stringify(last).length, inputTokens: result.usage.inputTokens, requests: parents.length };
}

/** Run the scenario. */
export async function subagents(o: SubagentsOptions): Promise<Section> {
  const root = mkdtempSync(join(tmpdir(), "bench-subagents-"));
  const problems: string[] = [];
  try {
    mkdirSync(join(root, "src"));
    for (let i = 1; i <= FILES; i++) {
      writeFileSync(join(root, "src", `part-${i}.ts`), `export const v${i} = ${i}; // TODO: check value ${i}\n`);
    }
    const one: number[] = [];
    const atOnce: number[] = [];
    const inTurn: number[] = [];
    for (let rep = -o.warmup; rep < o.reps; rep++) {
      const times = [await delegate(root, 1, false), await delegate(root, 2, false), await delegate(root, 2, true)];
      if (rep < 0) continue;
      one.push(times[0]);
      atOnce.push(times[1]);
      inTurn.push(times[2]);
    }
    const itself = await lastRequest(root, "itself");
    const child = await lastRequest(root, "child");
    if (itself.requests !== 2 || child.requests !== 2) problems.push("a parent made other than two requests");
    const figures: Figure[] = [
      {
        label: "two children at once ÷ one child alone",
        spread: summarize(atOnce.map((t, i) => t / one[i])),
        unit: "x",
        detail: `${summarize(atOnce).median.toFixed(0)} ms against ${summarize(one).median.toFixed(0)} ms (medians)`,
        target: atMost(summarize(atOnce.map((t, i) => t / one[i])), 1.25, "≈ 1x of one (≤ 1.25x)"),
      },
      {
        label: "two children one after the other ÷ one child alone",
        spread: summarize(inTurn.map((t, i) => t / one[i])),
        unit: "x",
        detail: `${summarize(inTurn).median.toFixed(0)} ms (median)`,
      },
      {
        label: `the parent's last request, searching ${FILES} files itself ÷ through a child`,
        spread: summarize([itself.bytes / child.bytes]),
        unit: "x",
        detail: `${itself.bytes.toLocaleString("en")} against ${child.bytes.toLocaleString("en")} bytes of messages; ${itself.inputTokens.toLocaleString("en")} against ${child.inputTokens.toLocaleString("en")} input tokens over the parent's calls (estimated)`,
      },
    ];
    return {
      title: "Subagents (s12)",
      about:
        `Time: a parent asking for one or two searches in one turn, each child two model calls the scripted model ` +
        `answers after ${DELAY_MS} ms, through s12's loop: one alone, two at once, two one after the other; ` +
        `${o.reps} repetitions (${o.warmup} warm-up). Context: a grep over ${FILES} files with a TODO each, done by ` +
        "the parent or handed to a child; the parent's last request compared (one run each, deterministic).",
      figures,
      notes: [
        "The child's own requests are not free: it reads the grep's output too. What the parent saves is every " +
          "later request of its conversation resending that output.",
      ],
      problems,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
