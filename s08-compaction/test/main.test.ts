/**
 * s08 through its CLI, run in this process. One acceptance run of the offline demo (the demo
 * brain reading files, taking a note and recalling it, in a window as small as `--context-window`
 * makes the scripted model's); every other run talks to a scripted model served on 127.0.0.1 (its
 * replies written out here): the context line after each answer, `/compact`, `--compaction off`
 * and `server`, and the exit status of `context_overflow`.
 */
import { usage } from "@harness/cli";
import {
  CONTEXT_MANAGEMENT_BETA,
  estimateInputTokens,
  reply,
  ScriptedModel,
  type ScriptedModelOptions,
  startScriptedServer,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { cliRunner } from "@harness/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { COMPACTION_EXIT_CODES } from "../src/compaction-stop-reason.ts";
import { chapter, main } from "../src/main.ts";
import { SERVER_BETAS } from "../src/server-context-management.ts";

const { cleanEnv, project, runHere } = cliRunner("s08-compaction", { main });

/** A project holding part-1.txt … part-N.txt, 151 numbered lines each (`seq N000 N150`). */
const partsProject = (n = 8) =>
  project(
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [
        `part-${i + 1}.txt`,
        `${Array.from({ length: 151 }, (_, k) => (i + 1) * 1000 + k).join("\n")}\n`,
      ]),
    ),
  );
const reads = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `Read part-${from + i}.txt and summarise it`);
const lines = (prompts: string[]) => prompts.map((line) => `${line}\n`).join("");

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A scripted model served on 127.0.0.1, and the environment that sends the CLI to it. */
async function served(options: ScriptedModelOptions) {
  const model = new ScriptedModel(options);
  const server = await startScriptedServer(model);
  servers.push(server);
  return { model, env: cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url }) };
}

describe("pnpm s08", () => {
  it("runs the offline demo: a session longer than a small window to the end, the context's lines, a note recalled", async () => {
    const cwd = partsProject();
    const prompts = [
      "Note: the release codename is BLUE-HERON.",
      ...reads(1, 7),
      "What is the release codename you noted?",
    ];
    const { code, stdout, stderr } = await runHere(
      ["--offline", "--context-window", "4000", "--cwd", cwd],
      cleanEnv(),
      lines(prompts),
    );
    expect(stderr).not.toContain("error");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^context: cleared 1 old tool result \([\d,]+ → [\d,]+ tokens\)$/m);
    expect(stdout).toMatch(
      /^context: over the threshold: summarised \d+ messages, kept \d+ \([\d,]+ → [\d,]+ tokens\)$/m,
    );
    expect(stdout).toMatch(/^context: [\d,]+ of 3,200 tokens \(\d+%; window 4,000, the rest kept for the answer\)$/m);
    expect(stdout).toContain("The release codename is BLUE-HERON.");
  }, 60_000);

  it("summarises by hand with /compact, whatever the size, the instructions sent with the summary prompt", async () => {
    const { model, env } = await served({
      script: [
        reply([toolUse("read_file", { path: "part-1.txt" })]),
        textReply("part-1.txt is 151 lines long."),
        reply([toolUse("read_file", { path: "part-2.txt" })]),
        textReply("part-2.txt is 151 lines long."),
        textReply("## Task\n- read part-1.txt and part-2.txt: 151 lines each"),
      ],
    });
    const { code, stdout } = await runHere(
      ["--cwd", partsProject(2)],
      env,
      lines([...reads(1, 2), "/compact keep the line counts"]),
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^(?:s08 >> )?context: \/compact: summarised 8 messages, kept 0 \([\d,]+ → [\d,]+ tokens\)$/m,
    );
    expect(JSON.stringify(model.requests.at(-1)?.body.messages.at(-1))).toContain(
      "Additional instructions from the user: keep the line counts",
    );
    expect(model.pending).toBe(0);
  }, 60_000);

  it("with --compaction off, prints the API's refusal as one error line, and every later prompt fails too", async () => {
    const { model, env } = await served({ contextWindow: 2000 });
    const { stderr } = await runHere(
      ["--compaction", "off", "--cwd", project()],
      env,
      lines([`Read this: ${"x".repeat(10_000)}`, "What is 2 + 2?"]),
    );
    const refusals = stderr.match(
      /^s08: error: the API answered 400 invalid_request_error: prompt is too long: \d+ tokens > 2000 maximum$/gm,
    );
    expect(refusals).toHaveLength(2);
    expect(model.requests).toHaveLength(2); // nothing summarised, nothing sent again
    // where the session is written is said first, once; each run's error line is the last it says
    expect(stderr.trim().split("\n").slice(-3)).toEqual([
      expect.stringMatching(/^s08: session /),
      refusals?.[0],
      refusals?.[1],
    ]);
  }, 60_000);

  it("with --compaction server, sends the betas' header and the context management with every request", async () => {
    const { model, env } = await served({ script: [textReply("Hello.")] });
    const { code, stdout } = await runHere(["--compaction", "server", "--cwd", project(), "--json", "hi"], env);
    expect(code).toBe(0);
    // the context line comes after the answer, and the result after it: the last line, as --json promises
    const lines = stdout.trim().split("\n");
    expect(lines.at(-2)).toMatch(/^context: [\d,]+ of 180,000 tokens/);
    expect(JSON.parse(lines.at(-1) ?? "")).toMatchObject({ stopReason: "final_answer", finalText: "Hello." });
    const [sent] = model.requests;
    expect(sent.headers["anthropic-beta"]).toBe(SERVER_BETAS.join(","));
    expect(SERVER_BETAS).toContain(CONTEXT_MANAGEMENT_BETA);
    expect(sent.body).toMatchObject({ context_management: { edits: [{ type: "clear_tool_uses_20250919" }, {}] } });
  }, 60_000);

  it("takes on the window a refusal names when --context-window said more, once, and a single prompt's tool calls go on past it", async () => {
    // one prompt, eight reads of about 130 tokens each; the model reads 1,500 tokens, the harness was told 20,000
    const calls = Array.from({ length: 8 }, (_, i) => reply([toolUse("read_file", { path: `part-${i + 1}.txt` })]));
    const turns = [...calls, textReply("Read all eight.")];
    const { model, env } = await served({
      contextWindow: 1500,
      // a summary request is answered with a summary; every other request with the next turn
      brain: (request) =>
        JSON.stringify(request.messages.at(-1)).includes("Summarise this conversation")
          ? textReply("## Task\n- read part-1.txt to part-8.txt")
          : (turns.shift() ?? textReply("nothing left")),
    });
    const files = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [
        `part-${i + 1}.txt`,
        `${Array.from({ length: 50 }, (_, k) => k).join("\n")}\n`,
      ]),
    );
    const { code, stdout } = await runHere(
      [
        "--context-window",
        "20000",
        "--max-turns",
        "12",
        "--cwd",
        project(files),
        "Read part-1.txt to part-8.txt, one at a time",
      ],
      env,
    );
    expect(code).toBe(0);
    expect(
      stdout.match(/^context: the API's window is 1,500 tokens, not 20,000: kept inside it from now on$/gm),
    ).toHaveLength(1);
    // the first compaction cuts inside the prompt's run of tool calls: the prompt stays, word for word
    expect(stdout).toMatch(/^context: the API refused the prompt as too long: summarised \d+ messages, kept 2 /m);
    expect(stdout).toContain("── final_answer · 9 turns · 8 tool calls");
    expect(stdout).toMatch(/^context: [\d,]+ of 1,200 tokens \(\d+%; window 1,500, the rest kept for the answer\)$/m);
    expect(turns).toHaveLength(0);
    // no request but the refused one was over the window
    const refused = model.requests.filter((r) => estimateInputTokens(r.body) > 1500);
    expect(refused).toHaveLength(1);
    const resent = model.requests[model.requests.indexOf(refused[0]) + 2];
    expect(JSON.stringify(resent.body.messages[0])).toContain("Read part-1.txt to part-8.txt, one at a time");
  }, 60_000);

  it("continues a session longer than a smaller window says: the refusal's window taken on, the summary asked in parts that fit it", async () => {
    // ten answers of about 500 tokens each, written where the window was large
    const notes = Array.from({ length: 10 }, (_, i) => `Note ${i + 1}: ${"the plan holds. ".repeat(120)}`);
    const first = await served({ script: notes.map((_, i) => textReply(`Noted ${i + 1}. ${"ok ".repeat(600)}`)) });
    const cwd = project();
    expect((await runHere(["--cwd", cwd], first.env, lines(notes))).code).toBe(0);
    // the same session continued on a deployment that reads 4,000 tokens
    const { model, env } = await served({
      contextWindow: 4000,
      brain: (request) =>
        JSON.stringify(request.messages.at(-1)).includes("Summarise this conversation")
          ? textReply("## Task\n- ten notes: the plan holds")
          : textReply("The plan holds."),
    });
    const again = { ...env, HARNESS_HOME: first.env.HARNESS_HOME };
    const { code, stdout } = await runHere(["--continue", "--cwd", cwd, "Does the plan hold?"], again);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^context: the API's window is 4,000 tokens, not 200,000: kept inside it from now on$/m);
    expect(stdout).toMatch(/^context: the API refused the prompt as too long: summarised \d+ messages/m);
    expect(stdout).toContain("The plan holds.");
    const summaries = model.requests.filter((r) => JSON.stringify(r.body).includes("Summarise this conversation"));
    expect(summaries.length).toBeGreaterThan(1); // the head is longer than one summary request may be
    for (const summary of summaries) expect(estimateInputTokens(summary.body)).toBeLessThanOrEqual(4000);
  }, 60_000);

  it(`stops with context_overflow, exit status ${COMPACTION_EXIT_CODES.context_overflow}, when nothing makes the prompt fit`, async () => {
    const { code, stdout } = await runHere(["--offline", "--context-window", "600", "x".repeat(4000)], cleanEnv());
    expect(code).toBe(COMPACTION_EXIT_CODES.context_overflow);
    expect(stdout).toContain("── context_overflow · 0 turns");
  }, 60_000);

  it("refuses a bad window or mode in one line, before any model call", async () => {
    for (const [argv, line] of [
      [
        ["--context-window", "0"],
        's08: error: --context-window expects a whole number of tokens of at least 1, got "0"\n',
      ],
      [
        ["--context-window", "lots"],
        's08: error: --context-window expects a whole number of tokens of at least 1, got "lots"\n',
      ],
      [["--compaction", "later"], 's08: error: --compaction: "later" is not a mode; use one of client, server, off\n'],
    ] as const) {
      const { code, stderr } = await runHere(["--offline", ...argv, "hi"], cleanEnv());
      expect(code).toBe(1);
      expect(stderr).toBe(line);
    }
  });

  it("lists its options, its exit statuses and /compact in --help", async () => {
    const { code, stdout } = await runHere(["--help"], cleanEnv());
    expect(code).toBe(0);
    expect(stdout).toContain("--context-window N");
    expect(stdout).toContain("this chapter: 130 aborted, 4 prompt_blocked, 5 context_overflow");
    expect(stdout).toContain("in the REPL:\n  /compact [instructions]");
    const { command, summary, flags, exitCodes, commandHelp } = chapter;
    expect(stdout).toBe(`${usage(command, summary, [...(flags ?? [])], exitCodes, commandHelp)}\n`);
  });
});
