import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type {
  MessageCreateParams,
  MessageParam,
  Tool,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import { AgentTurn, appendAssistantTurn, bashToolDefinition, historyProblems, runBashTool } from "@harness/shared";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readConversation } from "../src/brain/read-conversation.ts";
import { splitBashOutput } from "../src/brain/read-result.ts";
import { DEMO_RULES, demoBrain } from "../src/demo-brain.ts";
import type { ScriptedBlock, ScriptedReply, ScriptStep } from "../src/script.ts";
import { ScriptedModel } from "../src/scripted-model.ts";

const request = (messages: MessageParam[], tools: Tool[] = [bashToolDefinition]): MessageCreateParams => ({
  model: "m",
  max_tokens: 1000,
  tools,
  messages,
});

function asReply(step: ScriptStep): ScriptedReply {
  expect(step.kind).toBe("reply");
  return step as ScriptedReply;
}

/** The bash commands a reply asks for. */
const commandsOf = (step: ScriptStep) =>
  asReply(step)
    .content.filter((b): b is Extract<ScriptedBlock, { type: "tool_use"; input: Record<string, unknown> }> => {
      return b.type === "tool_use" && "input" in b;
    })
    .map((b) => b.input.command as string);

/** The text of a reply. */
const textOf = (step: ScriptStep) =>
  asReply(step)
    .content.map((b) => (b.type === "text" ? b.text : ""))
    .join("");

/**
 * Play a conversation with the brain: the prompt, then for each given tool output, the brain's
 * tool calls answered with it. Returns the brain's last reply.
 */
function converse(prompt: string, outputs: { content: string; isError?: boolean }[]): ScriptStep {
  const messages: MessageParam[] = [{ role: "user", content: prompt }];
  let step = demoBrain(request(messages));
  for (const [n, output] of outputs.entries()) {
    const calls = asReply(step).content.filter((b) => b.type === "tool_use");
    expect(calls.length).toBeGreaterThan(0);
    messages.push({
      role: "assistant",
      content: asReply(step).content.map((b, i) =>
        b.type === "tool_use"
          ? { type: "tool_use", id: `toolu_${n}_${i}`, name: b.name, input: "input" in b ? b.input : {} }
          : { type: "text", text: b.type === "text" ? b.text : "" },
      ),
    });
    messages.push({
      role: "user",
      content: asReply(step)
        .content.flatMap((b, i) => (b.type === "tool_use" ? [i] : []))
        .map(
          (i): ToolResultBlockParam => ({
            type: "tool_result",
            tool_use_id: `toolu_${n}_${i}`,
            content: output.content,
            is_error: output.isError ?? false,
          }),
        ),
    });
    expect(historyProblems(messages)).toEqual([]);
    step = demoBrain(request(messages));
  }
  return step;
}

describe("demoBrain", () => {
  describe("the current git branch", () => {
    const prompt = "What is the current git branch?";

    it("asks git for the branch", () => {
      expect(commandsOf(demoBrain(request([{ role: "user", content: prompt }])))).toEqual([
        "git branch --show-current",
      ]);
    });

    it("answers with the branch git printed", () => {
      const answer = converse(prompt, [{ content: "feature-x\n[exit code 0]" }]);
      expect(textOf(answer)).toBe("The current branch is feature-x.");
      expect(commandsOf(answer)).toEqual([]);
    });

    it("says so when the directory is not a git repository", () => {
      const answer = converse(prompt, [
        {
          content: "fatal: not a git repository (or any of the parent directories): .git\n[exit code 128]",
          isError: true,
        },
      ]);
      expect(textOf(answer)).toBe("This directory is not a git repository, so there is no current branch.");
    });

    it("says so when HEAD is detached", () => {
      expect(textOf(converse(prompt, [{ content: "(no output)\n[exit code 0]" }]))).toBe(
        "No branch is checked out: HEAD is detached.",
      );
    });

    it("quotes git's own error for any other failure", () => {
      const answer = converse(prompt, [{ content: "error: something broke\n[exit code 1]", isError: true }]);
      expect(textOf(answer)).toBe("git could not tell:\nerror: something broke");
    });
  });

  describe("creating a file", () => {
    const prompt = 'Create a file called hello.js that prints "Hello, World!"';

    it("writes the file with a heredoc first", () => {
      const [write] = commandsOf(demoBrain(request([{ role: "user", content: prompt }])));
      expect(write).toBe("cat > hello.js <<'EOF'\nconsole.log(\"Hello, World!\");\nEOF");
    });

    it("runs the file once it is written", () => {
      const step = converse(prompt, [{ content: "(no output)\n[exit code 0]" }]);
      expect(commandsOf(step)).toEqual(["node hello.js"]);
    });

    it("answers with what the program printed", () => {
      const answer = converse(prompt, [
        { content: "(no output)\n[exit code 0]" },
        { content: "Hello, World!\n[exit code 0]" },
      ]);
      expect(textOf(answer)).toBe("I created hello.js and ran it with `node hello.js`. It printed:\n\nHello, World!");
    });

    it("says so when the file could not be written", () => {
      const answer = converse(prompt, [{ content: "bash: hello.js: Permission denied\n[exit code 1]", isError: true }]);
      expect(textOf(answer)).toBe("I could not create hello.js:\nbash: hello.js: Permission denied");
    });

    it("says so when the program failed, with its exit code and output", () => {
      const answer = converse(prompt, [
        { content: "(no output)\n[exit code 0]" },
        { content: "node: command not found\n[exit code 127]", isError: true },
      ]);
      expect(textOf(answer)).toBe(
        "I created hello.js, but `node hello.js` failed (exit code 127):\n\nnode: command not found",
      );
    });

    it.each([
      ['Create a file named greet.py that prints "hi"', 'print("hi")', "python3 greet.py"],
      ["create a file called run.sh that prints 'it works'", "echo 'it works'", "bash run.sh"],
      ['Create file called notes.txt that prints "plain"', "plain", "cat notes.txt"],
    ])("picks the program and the runner from the file name: %s", (prompt, source, run) => {
      const [write] = commandsOf(demoBrain(request([{ role: "user", content: prompt }])));
      expect(write).toContain(`\n${source}\nEOF`);
      expect(commandsOf(converse(prompt, [{ content: "(no output)\n[exit code 0]" }]))).toEqual([run]);
    });
  });

  describe("listing TypeScript files", () => {
    const prompt = "List all TypeScript files in this directory";

    it("searches with find, skipping node_modules and .git", () => {
      const [command] = commandsOf(demoBrain(request([{ role: "user", content: prompt }])));
      expect(command).toMatch(/^find \. .*node_modules.*\.git/);
    });

    it("lists the files find printed", () => {
      const answer = converse(prompt, [{ content: "a.ts\nsrc/b.tsx\n[exit code 0]" }]);
      expect(textOf(answer)).toBe("There are 2 TypeScript files here:\n- a.ts\n- src/b.tsx");
    });

    it("speaks of one file in the singular", () => {
      expect(textOf(converse(prompt, [{ content: "main.ts\n[exit code 0]" }]))).toBe(
        "There is 1 TypeScript file here:\n- main.ts",
      );
    });

    it("says so when there are none", () => {
      expect(textOf(converse(prompt, [{ content: "(no output)\n[exit code 0]" }]))).toMatch(
        /^There are no TypeScript files/,
      );
    });

    it("shows forty files and counts the rest", () => {
      const files = Array.from({ length: 45 }, (_, i) => `f${i}.ts`).join("\n");
      const answer = textOf(converse(prompt, [{ content: `${files}\n[exit code 0]` }]));
      expect(answer).toMatch(/^There are 45 TypeScript files here:/);
      expect(answer).toContain("- f39.ts\n- ... and 5 more");
      expect(answer).not.toContain("f40.ts");
    });
  });

  describe("running a shell line of several commands", () => {
    const prompt = "Run git diff && rm -rf build";

    it("runs the line as written", () => {
      expect(commandsOf(demoBrain(request([{ role: "user", content: prompt }])))).toEqual(["git diff && rm -rf build"]);
    });

    it("answers with what the line printed and its exit code", () => {
      const answer = textOf(converse(prompt, [{ content: "(no output)\n[exit code 0]" }]));
      expect(answer).toBe("`git diff && rm -rf build` exited with code 0 and printed nothing.");
    });

    it("says the harness did not run it, and why, when the result is an error with no exit code", () => {
      const why = "denied by rule Bash(rm:*) from --deny: the simple command `rm -rf build`";
      const answer = textOf(converse(prompt, [{ content: `Error [denied]: ${why}`, isError: true }]));
      expect(answer).toBe(`The harness did not run \`git diff && rm -rf build\`. It said: ${why}`);
    });

    it("leaves a one-command prompt and a prompt in backticks to the other rules", () => {
      for (const other of ["Run the tests", "Run `ls; pwd`"]) {
        expect(commandsOf(demoBrain(request([{ role: "user", content: other }])))).not.toEqual([other.slice(4)]);
      }
      expect(textOf(demoBrain(request([{ role: "user", content: "Run the tests" }])))).toMatch(/^I am the offline/);
    });
  });

  describe("pushing a branch", () => {
    const prompt = "Push this branch";

    it("pushes with git push", () => {
      expect(commandsOf(demoBrain(request([{ role: "user", content: prompt }])))).toEqual(["git push"]);
    });

    it("quotes why when the harness refused the push", () => {
      const why = "git push is blocked here: leave the push to a person.";
      const answer = textOf(converse(prompt, [{ content: `Error [denied]: ${why}`, isError: true }]));
      expect(answer).toBe(`I did not push: the harness refused \`git push\`. It said: ${why}`);
    });

    it("quotes git when the push ran and failed", () => {
      const answer = converse(prompt, [
        { content: "fatal: No configured push destination.\n[exit code 128]", isError: true },
      ]);
      expect(textOf(answer)).toBe("`git push` failed (exit code 128):\n\nfatal: No configured push destination.");
    });
  });

  describe("writing a file and reading it back", () => {
    const prompt = 'Write "let total = 1;   " to total.js, then read it back';
    const tools: Tool[] = ["write_file", "read_file"].map((name) => ({ name, input_schema: { type: "object" } }));
    const callsOf = (step: ScriptStep) => asReply(step).content.filter((b) => b.type === "tool_use");

    it("writes the quoted text as written, as one line", () => {
      const [write] = callsOf(demoBrain(request([{ role: "user", content: prompt }], tools)));
      expect(write).toMatchObject({ name: "write_file", input: { path: "total.js", content: "let total = 1;   \n" } });
    });

    it("counts the lines ending in whitespace as written and as read back", () => {
      const messages: MessageParam[] = [{ role: "user", content: prompt }];
      const answer = (outputs: string[]) => {
        const history = [...messages];
        outputs.forEach((output, n) => {
          const [call] = callsOf(demoBrain(request(history, tools)));
          history.push({ role: "assistant", content: [{ type: "tool_use", id: `t${n}`, name: call.name, input: {} }] });
          history.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${n}`, content: output }] });
        });
        return textOf(demoBrain(request(history, tools)));
      };
      expect(answer(["Wrote 18 bytes to total.js.", "     1\tlet total = 1;"])).toBe(
        "I wrote total.js. The write said:\n\nWrote 18 bytes to total.js.\n\nRead back, it is:\n\nlet total = 1;\n\n" +
          "As I wrote it, 1 line ended in spaces or tabs; as it is now, 0 lines.",
      );
    });
  });

  describe("failing tests", () => {
    it("runs the command the message names in backticks, and shows what it prints", () => {
      const prompt = "The tests fail: `node test.js` exits with code 1. Fix them.";
      expect(commandsOf(demoBrain(request([{ role: "user", content: prompt }])))).toEqual(["node test.js"]);
      const answer = textOf(converse(prompt, [{ content: "FAIL add(2, 2)\n[exit code 1]", isError: true }]));
      expect(answer).toBe(
        "`node test.js` exits with code 1:\n\nFAIL add(2, 2)\n\nI am the offline scripted model: I can show you the failure, not fix it.",
      );
    });

    it("runs npm test when the message names no command, and says when they pass", () => {
      const prompt = "The tests fail: find out why";
      expect(commandsOf(demoBrain(request([{ role: "user", content: prompt }])))).toEqual(["npm test"]);
      expect(textOf(converse(prompt, [{ content: "ok\n[exit code 0]" }]))).toBe(
        "`npm test` passes now (exit code 0).\n\nok",
      );
    });
  });

  describe("surveying a project with a todo list (s11)", () => {
    const prompt = "Survey this project: list its files, read each one, then report";
    const tools = ["todo_write", "glob", "read_file"].map(
      (name): Tool => ({ name, description: name, input_schema: { type: "object" } }),
    );
    const FILES: Record<string, string> = { "README.md": "1\t# Shop", "a.js": "1\tx\n2\ty", "b.js": "1\tz" };
    /** The brain's replies, each call answered as a harness would (glob lists FILES, read_file gives one). */
    function survey(): ScriptedReply[] {
      const messages: MessageParam[] = [{ role: "user", content: prompt }];
      const replies: ScriptedReply[] = [];
      for (let n = 0; n < 10; n++) {
        const step = asReply(demoBrain(request(messages, tools)));
        replies.push(step);
        const calls = step.content.filter((b) => b.type === "tool_use");
        if (calls.length === 0) break;
        messages.push({
          role: "assistant",
          content: step.content.map((b, i) =>
            b.type === "tool_use" && "input" in b
              ? { type: "tool_use", id: `t${n}_${i}`, name: b.name, input: b.input }
              : { type: "text", text: b.type === "text" ? b.text : "" },
          ),
        });
        const answer = (b: ScriptedBlock): string => {
          if (b.type !== "tool_use" || !("input" in b)) return "";
          if (b.name === "glob") return "b.js\nREADME.md\na.js";
          if (b.name === "read_file") return FILES[b.input.path as string];
          return "The list is saved.";
        };
        messages.push({
          role: "user",
          content: step.content.flatMap((b, i): ToolResultBlockParam[] =>
            b.type === "tool_use" ? [{ type: "tool_result", tool_use_id: `t${n}_${i}`, content: answer(b) }] : [],
          ),
        });
        expect(historyProblems(messages)).toEqual([]);
      }
      return replies;
    }
    const calls = (step: ScriptedReply) =>
      step.content.flatMap((b) =>
        b.type === "tool_use" && "input" in b ? [`${b.name} ${JSON.stringify(b.input)}`] : [],
      );
    const statuses = (step: ScriptedReply) =>
      step.content.flatMap((b) =>
        b.type === "tool_use" && "input" in b && b.name === "todo_write"
          ? [(b.input.todos as { status: string }[]).map((t) => t.status).join(",")]
          : [],
      );

    it("writes the plan, lists the files, reads one a turn by name, reports, and marks every step completed", () => {
      const replies = survey();
      expect(replies.map(statuses)).toEqual([
        ["in_progress,pending,pending"],
        ["completed,in_progress,pending"],
        [],
        [],
        ["completed,completed,completed"],
        [],
      ]);
      expect(replies.map((step) => calls(step).filter((c) => !c.startsWith("todo_write")))).toEqual([
        ['glob {"pattern":"**/*"}'],
        ['read_file {"path":"README.md"}'],
        ['read_file {"path":"a.js"}'],
        ['read_file {"path":"b.js"}'],
        [],
        [],
      ]);
      expect(textOf(replies[4])).toBe("I read 3 files: README.md (1 line), a.js (2 lines), b.js (1 line).");
      expect(textOf(replies[5])).toBe("All three steps are completed.");
    });

    it("is offered only where todo_write is", () => {
      expect(textOf(demoBrain(request([{ role: "user", content: prompt }])))).toMatch(
        /^I am the offline scripted model/,
      );
    });
  });

  describe("a prompt it does not know", () => {
    it("says honestly that it is the offline model, lists the prompts it knows and how to use a real one", () => {
      const step = demoBrain(request([{ role: "user", content: "Write me a sonnet about compilers." }]));
      expect(commandsOf(step)).toEqual([]);
      const answer = textOf(step);
      expect(answer).toMatch(/^I am the offline scripted model/);
      // the request offers bash only: the rules that need bash are listed, the others are not
      for (const rule of DEMO_RULES) {
        if (rule.needs.every((t) => t === "bash") && !rule.unlisted) expect(answer).toContain(`  - ${rule.example}`);
        else expect(answer).not.toContain(rule.example);
      }
      expect(answer).toContain("ANTHROPIC_API_KEY");
    });

    it("offers no rule whose tools the request does not offer", () => {
      const step = demoBrain(request([{ role: "user", content: "What is the current git branch?" }], []));
      expect(commandsOf(step)).toEqual([]);
      expect(textOf(step)).toMatch(/^I am the offline scripted model/);
      expect(textOf(step)).not.toContain("git branch");
    });
  });

  describe("asked what it said last", () => {
    it("quotes its last answer in the history it was sent", () => {
      const messages: MessageParam[] = [
        { role: "user", content: "What is the current git branch?" },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "t1", name: "bash", input: { command: "git branch" } }],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "main\n[exit code 0]" }] },
        { role: "assistant", content: [{ type: "text", text: "The current branch is main." }] },
        { role: "user", content: "What did you just tell me?" },
      ];
      expect(textOf(demoBrain(request(messages)))).toBe(
        "Before this prompt, I told you:\n\nThe current branch is main.",
      );
      expect(readConversation(request(messages)).earlier).toEqual(messages.slice(0, -1));
    });

    it("says there is nothing when the history it was sent holds no answer of its own", () => {
      const step = demoBrain(request([{ role: "user", content: "What did you just tell me?" }]));
      expect(textOf(step)).toBe("Nothing yet: the history I was sent holds no answer of mine before this prompt.");
    });
  });

  it("answers the latest prompt, not an earlier one", () => {
    const messages: MessageParam[] = [
      { role: "user", content: "What is the current git branch?" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "bash", input: { command: "git branch" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "main\n[exit code 0]" }] },
      { role: "assistant", content: [{ type: "text", text: "The current branch is main." }] },
      { role: "user", content: "List all TypeScript files in this directory" },
    ];
    expect(commandsOf(demoBrain(request(messages)))[0]).toMatch(/^find /);
  });

  it("reads a prompt typed after tool results in the same user message", () => {
    const messages: MessageParam[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "bash", input: { command: "ls" } }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "x" },
          { type: "text", text: "What is the current git branch?" },
        ],
      },
    ];
    const conversation = readConversation(request(messages));
    expect(conversation.prompt.trim()).toBe("What is the current git branch?");
    expect(conversation.exchanges).toEqual([]);
    expect(commandsOf(demoBrain(request(messages)))).toEqual(["git branch --show-current"]);
  });
});

describe("splitBashOutput", () => {
  it.each([
    ["hello\n[exit code 0]", "hello", 0],
    ["(no output)\n[exit code 3]", "", 3],
    ["partial\n[timed out after 1 s; the process group was killed]", "partial", null],
    ["no footer", "no footer", null],
  ])("splits %j into its output and exit code", (output, body, exitCode) => {
    expect(splitBashOutput({ name: "bash", input: {}, output, isError: false })).toEqual({ output: body, exitCode });
  });
});

describe("demoBrain with the real bash tool", () => {
  let cwd: string;
  beforeEach(() => {
    cwd = realpathSync(mkdtempSync(join(tmpdir(), "demo-brain-")));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  /** A minimal loop over the scripted model and the real bash tool; returns the answer and the commands run. */
  async function runDemo(prompt: string): Promise<{ answer: string; commands: string[] }> {
    const client = new ScriptedModel({ brain: demoBrain }).client();
    const messages: MessageParam[] = [{ role: "user", content: prompt }];
    const commands: string[] = [];
    for (let turns = 0; turns < 5; turns++) {
      const response = await client.messages.create({ ...request(messages), stream: false });
      const turn = AgentTurn.fromResponse(response);
      appendAssistantTurn(messages, turn);
      if (turn.toolCalls.length === 0) return { answer: turn.text, commands };
      const results: ToolResultBlockParam[] = [];
      for (const call of turn.toolCalls) {
        commands.push(String(call.input.command));
        const result = await runBashTool(call.input, { cwd, timeoutMs: 20_000 });
        results.push({ type: "tool_result", tool_use_id: call.id, content: result.content, is_error: result.isError });
      }
      messages.push({ role: "user", content: results });
    }
    throw new Error("the demo did not answer within 5 turns");
  }

  it("names the branch of a real repository", async () => {
    execFileSync("git", ["init", "-q", "-b", "feature-x"], { cwd });
    const { answer, commands } = await runDemo("What is the current git branch?");
    expect(commands).toEqual(["git branch --show-current"]);
    expect(answer).toBe("The current branch is feature-x.");
  });

  it("creates and runs a real file", async () => {
    const { answer, commands } = await runDemo('Create a file called hello.js that prints "Hello, World!"');
    expect(commands).toHaveLength(2);
    expect(readFileSync(join(cwd, "hello.js"), "utf8")).toBe('console.log("Hello, World!");\n');
    expect(answer).toBe("I created hello.js and ran it with `node hello.js`. It printed:\n\nHello, World!");
  });

  it("lists real TypeScript files, skipping node_modules", async () => {
    execFileSync("bash", ["-c", "mkdir -p src node_modules/x && touch src/a.ts b.tsx c.js node_modules/x/d.ts"], {
      cwd,
    });
    const { answer } = await runDemo("List all TypeScript files in this directory");
    expect(answer).toBe("There are 2 TypeScript files here:\n- b.tsx\n- src/a.ts");
  });
});
