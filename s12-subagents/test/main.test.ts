/**
 * s12 through the real CLI. One acceptance run of the offline demo; every other run talks to a
 * scripted model served on 127.0.0.1 that answers each conversation (the parent's, each child's)
 * from its own steps, and answers an invalid history with the API's 400. What each request carried
 * is read off the model, what was kept off the transcripts.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type OtlpSpan, readTrace, toOtlp } from "@harness/s04-tracing";
import { trustProject } from "@harness/s05-permissions";
import { historyOf, readTranscript } from "@harness/s07-sessions";
import { reply, text, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { until } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { loadAgentDefinitions, shippedAgents } from "../src/agents/agent-definitions.ts";
import { childFile } from "../src/children/sidechain.ts";
import {
  firstText,
  jsonResult,
  lastResults,
  newestSession,
  s12Runner,
  sentIn,
  systemText,
  toolNames,
  toolResultText,
} from "./run-cli.ts";

const { serve, runHere, startCli, project } = s12Runner();

const ASK = "Find the TODOs";
const TASK = "Search every file for TODO";
const task = (prompt: string, more: Record<string, unknown> = {}, id?: string) =>
  toolUse("task", { description: "Search for TODOs", prompt, ...more }, id);
const grep = reply([toolUse("grep", { pattern: "TODO" })]);

describe("pnpm s12", () => {
  it("runs the offline demo: the search handed to a child, its calls indented, the answer from its report", async () => {
    const cwd = project({ "src/a.ts": "export const a = 1; // TODO: name this\n" });
    const { env } = await serve({}); // for its clean environment only: no key, so the scripted model
    const { ANTHROPIC_API_KEY: _, ANTHROPIC_BASE_URL: __, ...offline } = env;
    const prompt = "Use a subagent to search this project for TODO comments";
    const { code, stdout, stderr } = await runHere(["--cwd", cwd, prompt], offline);
    expect(stderr).toMatch(/offline scripted model/);
    expect(code).toBe(0);
    expect(stdout).toContain("  task: ");
    expect(stdout).toMatch(/^ {6}grep: /m); // the child's call, under the parent's
    expect(stdout).toMatch(/^ {4}── final_answer · 2 turns · 1 tool call/m);
    expect(stdout).toContain("From the subagent's report: 1 TODO comment, in src/a.ts (line 1).");
  }, 60_000);

  it("starts the child on a fresh history: the prompt alone, a subagent's system prompt, no task tool", async () => {
    const { model, env } = await serve({
      [ASK]: [reply([text("Handing it over."), task(TASK)]), textReply("There is one TODO, in a.ts.")],
      [TASK]: [grep, textReply("a.ts:1 has the only TODO.")],
    });
    const cwd = project({ "a.ts": "// TODO: one\n" });
    const { code, stdout } = await runHere(["--cwd", cwd, "--json", ASK], env);
    expect(code).toBe(0);
    const [first, second] = sentIn(model, TASK);
    expect(first.messages).toHaveLength(1);
    expect(firstText(first)).toBe(TASK);
    expect(systemText(first)).toMatch(/^You are a subagent of a coding agent/);
    expect(toolNames(first)).not.toContain("task");
    expect(toolNames(first)).not.toContain("todo_write");
    expect(toolNames(first)).toContain("grep");
    expect(JSON.stringify(second.messages)).not.toContain(ASK); // nothing of the parent's conversation
    const [parentFirst, parentSecond] = sentIn(model, ASK);
    expect(toolNames(parentFirst)).toContain("task");
    expect(lastResults(parentSecond).map(toolResultText)).toEqual(["a.ts:1 has the only TODO."]);
    expect(lastResults(parentSecond)[0].is_error).toBeFalsy();
    expect(jsonResult(stdout).finalText).toBe("There is one TODO, in a.ts.");
  });

  it("counts the child's tokens in the parent's result", async () => {
    const usage = (input: number, output: number) => ({ usage: { input_tokens: input, output_tokens: output } });
    const { env } = await serve({
      [ASK]: [reply([task(TASK)], usage(100, 10)), textReply("Done.", usage(200, 20))],
      [TASK]: [textReply("Nothing found.", usage(1000, 50))],
    });
    const { stdout } = await runHere(["--cwd", project(), "--prompt-cache", "off", "--json", ASK], env);
    expect(jsonResult(stdout).usage).toMatchObject({ inputTokens: 1300, outputTokens: 80 });
  });

  it("stops a child that never reports at its turn budget: an error result with its last text, and the parent goes on", async () => {
    const { model, env } = await serve({
      [ASK]: [reply([task(TASK)]), textReply("The search did not finish.")],
      [TASK]: [reply([text("Looking in src."), toolUse("glob", { pattern: "*" })]), grep, grep],
    });
    const { code, stdout } = await runHere(["--cwd", project(), "--task-turns", "2", "--json", ASK], env);
    expect(code).toBe(0);
    expect(sentIn(model, TASK)).toHaveLength(2);
    const [result] = lastResults(sentIn(model, ASK)[1]);
    expect(result.is_error).toBe(true);
    expect(toolResultText(result)).toBe(
      "Error [turn_budget]: the subagent used its 2 turns without a final report. Its last text:\nLooking in src.",
    );
    expect(jsonResult(stdout).stopReason).toBe("final_answer");
    expect(historyProblems(sentIn(model, TASK)[1].messages)).toEqual([]);
  });

  it("stops a child at its token budget after the turn's calls have their results", async () => {
    const big = { usage: { input_tokens: 600, output_tokens: 10 } };
    const { model, env } = await serve({
      [ASK]: [reply([task(TASK)]), textReply("Out of budget.")],
      [TASK]: [reply([toolUse("glob", { pattern: "*" })], big), grep, grep],
    });
    const { code } = await runHere(["--cwd", project(), "--task-tokens", "500", "--prompt-cache", "off", ASK], env);
    expect(code).toBe(0);
    expect(sentIn(model, TASK)).toHaveLength(1); // no second call once the budget is spent
    const [result] = lastResults(sentIn(model, ASK)[1]);
    expect(result.is_error).toBe(true);
    expect(toolResultText(result)).toMatch(
      /^Error \[token_budget\]: the subagent spent 610 tokens, which ran out its budget of 500, after 1 turn/,
    );
  });

  it("binds the child by the parent's deny rules: its call is refused, the file stays", async () => {
    const { model, env } = await serve({
      [ASK]: [reply([task(TASK)]), textReply("It could not delete it.")],
      [TASK]: [reply([toolUse("bash", { command: "rm keep.txt" })]), textReply("The rm was denied.")],
    });
    const cwd = project({ "keep.txt": "keep\n" });
    const { code } = await runHere(
      ["--cwd", cwd, "--permission-mode", "bypassPermissions", "--deny", "Bash(rm:*)", ASK],
      env,
    );
    expect(code).toBe(0);
    const [denied] = lastResults(sentIn(model, TASK)[1]);
    expect(denied.is_error).toBe(true);
    expect(toolResultText(denied)).toMatch(/denied/);
    expect(existsSync(join(cwd, "keep.txt"))).toBe(true);
  });

  it("runs two task calls of one turn at the same time, and answers them in call order in one message", async () => {
    const slow = "Slow search";
    const quick = "Quick search";
    const { model, env } = await serve({
      [ASK]: [reply([task(slow, {}, "toolu_slow"), task(quick, {}, "toolu_quick")]), textReply("Both reported.")],
      [slow]: [{ ...grep, delayMs: 1500 }, textReply("slow report")],
      [quick]: [grep, textReply("quick report")],
    });
    const { code } = await runHere(["--cwd", project({ "a.txt": "TODO\n" }), ASK], env);
    expect(code).toBe(0);
    const order = model.requests.map((r) =>
      JSON.stringify(r.body.messages[0]).includes(slow)
        ? "slow"
        : JSON.stringify(r.body.messages[0]).includes(quick)
          ? "quick"
          : "parent",
    );
    // the quick child starts and finishes while the slow one waits for its first answer
    expect(order).toEqual(["parent", "slow", "quick", "quick", "slow", "parent"]);
    const results = lastResults(sentIn(model, ASK)[1]);
    expect(results.map((r) => [r.tool_use_id, toolResultText(r)])).toEqual([
      ["toolu_slow", "slow report"],
      ["toolu_quick", "quick report"],
    ]);
  });

  it("gives a definition's body as the child's system prompt, and narrows its tools to the definition's", async () => {
    const { model, env } = await serve({
      [ASK]: [reply([task(TASK, { subagent_type: "explorer" })]), textReply("Done.")],
      [TASK]: [textReply("Explored.")],
    });
    const home = env.HARNESS_HOME as string;
    const agent =
      "---\nname: explorer\ndescription: Finds things.\ntools: Read, Grep\n---\nYou explore and report with paths.\n";
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(home, "agents"), { recursive: true });
    writeFileSync(join(home, "agents", "explorer.md"), agent);
    const { code } = await runHere(["--cwd", project(), ASK], env);
    expect(code).toBe(0);
    const [child] = sentIn(model, TASK);
    expect(systemText(child)).toBe("You explore and report with paths.");
    expect(toolNames(child)).toEqual(["read_file", "grep"]);
    expect(JSON.stringify(sentIn(model, ASK)[0].tools)).toContain("- explorer: Finds things. (tools: read_file, grep)");
  });

  it("applies the project's definitions only once trusted, by s05's one rule", async () => {
    const files = {
      ".harness/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews.\n---\nYou review.\n",
      ".harness/agents/broken.md": "no frontmatter here\n",
    };
    const steps = () => ({
      [ASK]: [reply([task(TASK, { subagent_type: "reviewer" })]), textReply("Done.")],
      [TASK]: [textReply("Reviewed.")],
    });
    const cwd = project(files);
    const untrusted = await serve(steps());
    const first = await runHere(["--cwd", cwd, ASK], untrusted.env);
    expect(first.stderr).toContain("agents: .harness/agents/broken.md: no frontmatter");
    expect(first.stderr).toMatch(
      /project settings not applied \(not trusted yet\): 1 agent definition in \.harness\/agents/,
    );
    expect(toolResultText(lastResults(sentIn(untrusted.model, ASK)[1])[0])).toBe(
      'Error [unknown_subagent]: there is no subagent type "reviewer". Types: general-purpose.',
    );
    const trusted = await serve(steps());
    const home = trusted.env.HARNESS_HOME as string;
    const loaded = loadAgentDefinitions(cwd, home, ["read_file", "grep", "task"]);
    trustProject(cwd, [shippedAgents(loaded)], { home });
    const second = await runHere(["--cwd", cwd, ASK], trusted.env);
    expect(second.stderr).not.toContain("not applied");
    expect(systemText(sentIn(trusted.model, TASK)[0])).toBe("You review.");
  });

  it("runs SubagentStop hooks with Claude Code's fields when a child's report is about to stand", async () => {
    const { env } = await serve({
      [ASK]: [reply([task(TASK)]), textReply("Done.")],
      [TASK]: [textReply("The report.")],
    });
    const cwd = project();
    const hooks = { hooks: { SubagentStop: [{ hooks: [{ type: "command", command: "cat > stop.json" }] }] } };
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(cwd, ".harness"));
    writeFileSync(join(cwd, ".harness", "settings.local.json"), JSON.stringify(hooks));
    const { code } = await runHere(["--cwd", cwd, ASK], env);
    expect(code).toBe(0);
    const input = JSON.parse(readFileSync(join(cwd, "stop.json"), "utf8"));
    expect(input).toMatchObject({
      hook_event_name: "SubagentStop",
      agent_type: "general-purpose",
      last_assistant_message: "The report.",
      stop_hook_active: false,
    });
    expect(existsSync(input.agent_transcript_path)).toBe(true);
  });

  it("keeps each child's transcript beside the parent's, named after its task call", async () => {
    const { env } = await serve({
      [ASK]: [reply([task(TASK, {}, "toolu_search")]), textReply("Done.")],
      [TASK]: [grep, textReply("Found none.")],
    });
    const cwd = project();
    expect((await runHere(["--cwd", cwd, ASK], env)).code).toBe(0);
    const parent = newestSession(cwd, env);
    const side = readTranscript(childFile(parent.path, "toolu_search"));
    const header = JSON.parse(readFileSync(side.path, "utf8").split("\n")[0]);
    expect(header).toMatchObject({
      parentSession: parent.id,
      parentToolUseId: "toolu_search",
      agentType: "general-purpose",
    });
    const history = historyOf(side.records);
    expect(history[0]).toEqual({ role: "user", content: TASK });
    expect(historyProblems(history)).toEqual([]);
    const parentHistory = historyOf(readTranscript(parent.path).records);
    expect(JSON.stringify(parentHistory)).toContain('"tool_use_id":"toolu_search"');
  });

  it("nests the child's trace under the parent's task call: its file beside, its OTLP spans under the call's span", async () => {
    const usage = (input: number, output: number) => ({ usage: { input_tokens: input, output_tokens: output } });
    const { env } = await serve({
      [ASK]: [reply([task(TASK, {}, "toolu_traced")]), textReply("Done.")],
      [TASK]: [reply([toolUse("glob", { pattern: "*" })], usage(300, 30)), textReply("Traced.", usage(400, 40))],
    });
    const { code, stdout, stderr } = await runHere(["--cwd", project(), "--trace", ASK], env);
    expect(code).toBe(0);
    const path = /trace \S+ → (\S+\.jsonl)/.exec(stdout + stderr)?.[1] ?? "";
    const trace = readTrace(path);
    expect(existsSync(childFile(path, "toolu_traced"))).toBe(true);
    const spans = toOtlp(trace).resourceSpans.flatMap(
      (r) => (r as { scopeSpans: Array<{ spans: OtlpSpan[] }> }).scopeSpans[0].spans,
    );
    const call = spans.find((span) => span.name === "execute_tool task");
    const childRun = spans
      .filter((span) => span.name.startsWith("invoke_agent"))
      .find((span) => span.parentSpanId === call?.spanId);
    expect(childRun).toBeDefined();
    expect(spans.filter((span) => span.parentSpanId === childRun?.spanId).map((span) => span.name)).toEqual(
      expect.arrayContaining(["execute_tool glob"]),
    );
    const tokens = (name: string) => call?.attributes.find((a) => a.key === name)?.value;
    expect(tokens("gen_ai.usage.input_tokens")).toEqual({ intValue: "700" });
    expect(tokens("gen_ai.usage.output_tokens")).toEqual({ intValue: "70" });
  });

  it("answers an unknown subagent_type with an error that lists the known ones", async () => {
    const { model, env } = await serve({
      [ASK]: [reply([task(TASK, { subagent_type: "wizard" })]), textReply("No such kind.")],
    });
    expect((await runHere(["--cwd", project(), ASK], env)).code).toBe(0);
    const [result] = lastResults(sentIn(model, ASK)[1]);
    expect(result.is_error).toBe(true);
    expect(toolResultText(result)).toBe(
      'Error [unknown_subagent]: there is no subagent type "wizard". Types: general-purpose.',
    );
    expect(sentIn(model, TASK)).toHaveLength(0);
  });

  it("stops every child on Ctrl-C: the parent returns aborted, and both histories stay valid", async () => {
    const { model, env } = await serve({
      [ASK]: [reply([task(TASK, {}, "toolu_a")])],
      [TASK]: [{ kind: "hang" }],
    });
    const cwd = project();
    const cli = startCli(["--cwd", cwd, ASK], env);
    await until("the child's first request", () => sentIn(model, TASK).length === 1);
    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(130);
    expect(cli.stdout()).toContain("── aborted · 1 turn · 1 tool call");
    const parent = newestSession(cwd, env);
    const history = historyOf(readTranscript(parent.path).records);
    expect(historyProblems(history)).toEqual([]);
    expect(JSON.stringify(history)).toContain("Error [interrupted]: the user interrupted the subagent");
    const child = historyOf(readTranscript(childFile(parent.path, "toolu_a")).records);
    expect(child).toEqual([{ role: "user", content: TASK }]);
  }, 60_000);
});
