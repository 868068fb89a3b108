/**
 * s11 through the real CLI. One acceptance run of the offline demo; every other run talks to a
 * scripted model served on 127.0.0.1 whose replies call todo_write as each test shows, and which
 * answers an invalid history with the API's 400. What each request carried is read off the model,
 * what the cache read off the transcript, the plan off `--json`'s `todos`.
 */
import type { MessageCreateParams, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { SUMMARY_OPENING, SUMMARY_SYSTEM } from "@harness/s08-compaction";
import { reply, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { until } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { reminderFor } from "../src/reminders.ts";
import { restatement } from "../src/restate-plan.ts";
import { TODO_WRITE_DESCRIPTION } from "../src/todo-write.ts";
import {
  bigFile,
  DONE,
  jsonResult,
  lastResults,
  NEXT,
  newestSession,
  OPEN,
  s11Runner,
  sent,
  todoWrite,
  toolProcess,
  turnCounts,
} from "./run-cli.ts";

const { serve, runHere, startCli, project, cleanEnv } = s11Runner();

const read = (path: string) => reply([toolUse("read_file", { path })]);
const files = { "big.txt": bigFile(150), "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt": "d\n" };
/** Every request's messages, in one string: what the model was ever sent. */
const everything = (bodies: MessageCreateParams[]) => JSON.stringify(bodies.map((body) => body.messages));
/** Messages as the history holds them: s10's cache markers, which go on each request's copy only, taken off. */
const unmarked = (messages: MessageParam[]) =>
  JSON.parse(JSON.stringify(messages).replaceAll(/,"cache_control":\{[^}]*\}/g, ""));
/** s08's summary request. */
const isSummary = (body: MessageCreateParams) => JSON.stringify(body.system).includes(SUMMARY_SYSTEM);

describe("pnpm s11", () => {
  it("runs the offline demo: a plan written, worked through, a reminder on the way, every step completed", async () => {
    const cwd = project({
      "README.md": "# Shop\n",
      "notes.md": "one\ntwo\n",
      "src/cart.js": "export {};\n",
      "src/tax.js": "export {};\n",
    });
    const prompt = "Survey this project: list its files, read each one, then report";
    const { code, stdout, stderr } = await runHere(["--cwd", cwd, "--json", prompt], cleanEnv());
    expect(stderr).toMatch(/offline scripted model/);
    expect(code).toBe(0);
    const heads = stdout.split("\n").filter((line) => /^todos/.test(line));
    expect(heads).toEqual([
      "todos: 0 of 3 completed",
      "todos: 1 of 3 completed",
      "todos: reminded the model of 2 open items (no todo_write for 3 turns)",
      "todos: 3 of 3 completed",
    ]);
    expect(stdout).toContain("  [>] Reading each file\n");
    const result = jsonResult(stdout);
    expect(result.todos.map((item) => item.status)).toEqual(["completed", "completed", "completed"]);
    expect(result.finalText).toBe("All three steps are completed.");
  }, 60_000);

  it("offers todo_write in every request, its description teaching the rules, and runs it without asking", async () => {
    const { model, env } = await serve({ script: [reply([todoWrite(OPEN)]), textReply("Planned.")] });
    const { code, stdout, stderr } = await runHere(["--cwd", project(), "--json", "Plan the fix"], env);
    expect(code).toBe(0);
    expect(stderr).not.toContain("asks");
    for (const body of sent(model)) {
      expect(body.tools?.find((tool) => "name" in tool && tool.name === "todo_write")).toMatchObject({
        description: TODO_WRITE_DESCRIPTION,
      });
    }
    expect(TODO_WRITE_DESCRIPTION).toMatch(/three steps or more/);
    expect(TODO_WRITE_DESCRIPTION).toMatch(/only one item at a time/);
    expect(TODO_WRITE_DESCRIPTION).toMatch(/never while its tests fail/);
    expect(lastResults(sent(model)[1])).toEqual([
      expect.objectContaining({
        is_error: false,
        content: "The list is saved: 1 of 3 completed; in progress: Run the tests.",
      }),
    ]);
    expect(stdout).toContain(
      "todos: 1 of 3 completed\n  [x] Read the notes\n  [>] Running the tests\n  [ ] Fix the failing test\n",
    );
    expect(jsonResult(stdout).todos).toEqual(OPEN);
  });

  it("refuses each broken rule with an error naming it, the list unchanged and the history valid; reads a list sent as a JSON string", async () => {
    const twoInProgress = OPEN.map((item) => ({ ...item, status: "in_progress" }));
    const { model, env } = await serve({
      script: [
        reply([todoWrite(OPEN)]),
        reply([todoWrite(twoInProgress)]),
        reply([todoWrite([{ ...OPEN[0], content: "" }])]),
        reply([todoWrite([{ ...OPEN[0], status: "done" }])]),
        reply([todoWrite(JSON.stringify(NEXT))]),
        textReply("Planned."),
      ],
    });
    const { code, stdout } = await runHere(["--cwd", project(), "--json", "Plan the fix"], env);
    expect(code).toBe(0);
    const bodies = sent(model);
    expect(bodies).toHaveLength(6);
    const answers = bodies.slice(1).map((body) => lastResults(body)[0]);
    expect(answers.map((answer) => [answer.is_error, answer.content])).toEqual([
      [false, "The list is saved: 1 of 3 completed; in progress: Run the tests."],
      [
        true,
        "Error [invalid_arguments]: todo_write: one item in progress at a time: items 1, 2 and 3 are in_progress; the list is unchanged",
      ],
      [true, "Error [invalid_arguments]: todo_write: every item needs content: item 1 has none; the list is unchanged"],
      [
        true,
        'Error [invalid_arguments]: todo_write: status is one of pending, in_progress, completed: item 1 says "done"; the list is unchanged',
      ],
      [false, "The list is saved: 2 of 3 completed; in progress: Fix the failing test."],
    ]);
    // the refused calls changed nothing: the list shown twice, the JSON string read as a list
    expect(stdout.split("\n").filter((line) => /^todos: /.test(line))).toEqual([
      "todos: 1 of 3 completed",
      "todos: 2 of 3 completed",
    ]);
    expect(jsonResult(stdout).todos).toEqual(NEXT);
    for (const body of bodies) expect(historyProblems(body.messages)).toEqual([]);
  });

  it("reminds after three turns without a todo_write, appended to the last tool_result of the turn", async () => {
    const { model, env } = await serve({
      script: [
        reply([todoWrite(OPEN)]),
        read("big.txt"),
        read("a.txt"),
        reply([toolUse("read_file", { path: "b.txt" }), toolUse("read_file", { path: "c.txt" })]),
        read("d.txt"),
        textReply("Read them."),
      ],
    });
    const cwd = project(files);
    const { code, stdout } = await runHere(["--cwd", cwd, "Read the files"], env);
    expect(code).toBe(0);
    expect(stdout).toContain("todos: reminded the model of 2 open items (no todo_write for 3 turns)\n");
    const bodies = sent(model);
    const reminded = bodies.map((body) => JSON.stringify(body.messages).includes("<system-reminder>"));
    // the fifth request answers the third turn without a write: the first to carry it
    expect(reminded).toEqual([false, false, false, false, true, true]);
    const [b, c] = lastResults(bodies[4]);
    expect(c.content).toBe(`1\tc\n\n${reminderFor(OPEN, 3)}`);
    expect(b.content).toBe("1\tb"); // the other results of the turn as they were
    // after every tool_result, inside the last one: the message holds results only, in tool_use order
    expect((bodies[4].messages.at(-1) as MessageParam).content).toHaveLength(2);
    expect(historyProblems(bodies[4].messages)).toEqual([]);
    // in the history, not only in one request: the next request starts with this one's bytes
    expect(unmarked(bodies[5].messages.slice(0, bodies[4].messages.length))).toEqual(unmarked(bodies[4].messages));
    // so the cache reads it: the request after the reminder reads all the reminder's request wrote
    const turns = turnCounts(cwd, env);
    expect(turns[4].written).toBeGreaterThan(0);
    expect(turns[5].read).toBe(turns[4].read + turns[4].written);
  });

  it.each([
    ["no list was written", []],
    ["every item is completed", [reply([todoWrite(DONE)])]],
  ])("never reminds when %s, however many turns pass", async (_, first) => {
    const reads = ["a.txt", "b.txt", "c.txt", "d.txt", "a.txt", "b.txt", "c.txt"].map(read);
    const { model, env } = await serve({ script: [...first, ...reads, textReply("Read them.")] });
    const { code, stdout } = await runHere(["--cwd", project(files), "--max-turns", "12", "Read the files"], env);
    expect(code).toBe(0);
    expect(sent(model)).toHaveLength(reads.length + first.length + 1);
    expect(everything(sent(model))).not.toContain("<system-reminder>");
    expect(stdout).not.toContain("reminded");
  });

  it("restates the list after the summary, word for word, when a compaction removed the call that wrote it; a resume loads it", async () => {
    const steps = [reply([todoWrite(OPEN)]), textReply("Planned."), textReply("Going on."), textReply("Still on it.")];
    const { model, env } = await serve({
      brain: (request) =>
        isSummary(request) ? textReply("## Task\nFix the failing test.") : (steps.shift() ?? textReply("?")),
    });
    const cwd = project();
    const { code, stdout } = await runHere(["--cwd", cwd], env, "Plan the fix\n/compact\nGo on\n");
    expect(code).toBe(0);
    expect(stdout).toMatch(/context: \/compact: summarised 4 messages, kept 0/);
    const [afterCompaction] = sent(model)
      .filter((body) => !isSummary(body))
      .slice(2);
    // the call is gone with what the summary replaced; the list follows the summary, then the user's words
    expect(JSON.stringify(afterCompaction.messages)).not.toContain('"name":"todo_write"');
    expect(unmarked(afterCompaction.messages)[0].content).toEqual([
      { type: "text", text: `${SUMMARY_OPENING}\n\n## Task\nFix the failing test.` },
      { type: "text", text: restatement(OPEN) },
      { type: "text", text: "Plan the fix" },
      { type: "text", text: "Go on" },
    ]);
    // the boundary s08 wrote carries it: a resumed session, loaded from there, sends it again
    const resumed = await runHere(["--cwd", cwd, "--continue", "--json", "And now?"], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("todos (restored from the session): 1 of 3 completed\n");
    expect(JSON.stringify(sent(model).at(-1)?.messages[0])).toContain(JSON.stringify(restatement(OPEN)).slice(1, -1));
    expect(jsonResult(resumed.stdout).todos).toEqual(OPEN);
  });

  it("restates the list in the same run when a compaction over the threshold summarised the call away", async () => {
    const reads = (a: string, b: string) =>
      reply([toolUse("read_file", { path: a }), toolUse("read_file", { path: b })]);
    const steps = [
      reply([todoWrite(OPEN)]),
      reads("p1", "p2"),
      reads("p3", "p4"),
      reads("p5", "p6"),
      textReply("Done."),
    ];
    const { model, env } = await serve({
      brain: (request) =>
        isSummary(request) ? textReply("## Task\nRead the parts.") : (steps.shift() ?? textReply("?")),
    });
    const parts = Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [`p${i}`, bigFile(60)]));
    const { code, stdout } = await runHere(
      ["--cwd", project(parts), "--context-window", "6000", "Read the parts"],
      env,
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/^context: over the threshold: summarised \d+ messages, kept \d+/m);
    const turns = sent(model).filter((body) => !isSummary(body));
    const after = turns.at(-1) as MessageCreateParams; // the request the compaction was for
    expect(JSON.stringify(after.messages)).not.toContain('"name":"todo_write"');
    const opening = unmarked(after.messages)[0].content;
    expect(opening.slice(0, 2)).toEqual([
      { type: "text", text: `${SUMMARY_OPENING}\n\n## Task\nRead the parts.` },
      { type: "text", text: restatement(OPEN) },
    ]);
    expect(historyProblems(after.messages)).toEqual([]);
  });

  it("restores the list after --continue, shown before the first turn and in the result", async () => {
    const { env } = await serve({
      script: [reply([todoWrite(OPEN)]), textReply("Planned."), textReply("Going on.")],
    });
    const cwd = project();
    const first = await runHere(["--cwd", cwd, "--json", "Plan the fix"], env);
    expect(jsonResult(first.stdout).todos).toEqual(OPEN);
    const again = await runHere(["--cwd", cwd, "--continue", "--json", "Go on"], env);
    expect(again.code).toBe(0);
    expect(again.stdout.split("\n").slice(0, 4)).toEqual([
      "todos (restored from the session): 1 of 3 completed",
      "  [x] Read the notes",
      "  [>] Running the tests",
      "  [ ] Fix the failing test",
    ]);
    expect(jsonResult(again.stdout).todos).toEqual(OPEN);
  });

  it("restores the last list that was answered after a kill -9 in the middle of a turn: the call cut off does not count", async () => {
    const cwd = project();
    const { model, env } = await serve({
      script: [
        reply([todoWrite(OPEN)]),
        reply([todoWrite(NEXT), toolUse("bash", { command: "sleep 30" })]),
        textReply("Going on."),
      ],
    });
    const cli = startCli(["--cwd", cwd, "--allow", "Bash(sleep:*)", "Plan the fix, then sleep"], env);
    await toolProcess(cli, /sleep 30/);
    // the process had written NEXT when it died (the two calls of the batch run side by side, so
    // its line may come just after sleep starts), but no result of that turn reached the transcript
    await until("the list written", () => cli.stdout().includes("todos: 2 of 3 completed"));
    process.kill(-(cli.child.pid as number), "SIGKILL");
    expect(await cli.exited).toBe(null);

    const resumed = await runHere(["--cwd", cwd, "--continue", "--json", "Go on"], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('repaired: todo_write, bash had no result recorded; answered "interrupted"');
    expect(resumed.stdout).toContain("todos (restored from the session): 1 of 3 completed\n");
    expect(jsonResult(resumed.stdout).todos).toEqual(OPEN);
    expect(historyProblems(sent(model).at(-1)?.messages ?? [])).toEqual([]);
  }, 60_000);

  it("starts a fork with a copy of the list: the fork's writes leave the original's list as it was", async () => {
    const { env } = await serve({
      script: [
        reply([todoWrite(OPEN)]),
        textReply("Planned."),
        reply([todoWrite(DONE)]),
        textReply("Done."),
        textReply("Here."),
      ],
    });
    const cwd = project();
    await runHere(["--cwd", cwd, "Plan the fix"], env);
    const original = newestSession(cwd, env).id;
    const fork = await runHere(["--cwd", cwd, "--continue", "--fork", "--json", "Finish it"], env);
    expect(fork.stdout).toContain("todos (restored from the session): 1 of 3 completed\n");
    expect(jsonResult(fork.stdout).todos).toEqual(DONE);
    const back = await runHere(["--cwd", cwd, `--resume=${original}`, "--json", "Where were we?"], env);
    expect(back.stderr).toContain(`resumed session ${original}`);
    expect(jsonResult(back.stdout).todos).toEqual(OPEN);
  });

  it("puts an empty list in the result when no list was written", async () => {
    const { env } = await serve({ script: [textReply("Hello.")] });
    const { stdout } = await runHere(["--cwd", project(), "--json", "Hi"], env);
    expect(jsonResult(stdout).todos).toEqual([]);
    expect(stdout).not.toMatch(/^todos/m);
  });
});
