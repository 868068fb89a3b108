import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_BASH_TIMEOUT_SECONDS, DEFAULT_MAX_TURNS } from "@harness/shared";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_MODEL, DEFAULT_MODEL_TIMEOUT_SECONDS } from "../src/create-client.ts";
import { type ExtraOption, parseCliArgs, UsageError, usage } from "../src/parse-cli-args.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "parse-cli-args-")));
mkdirSync(join(root, "sub"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const parse = (argv: string[], extras: ExtraOption[] = []) => parseCliArgs(argv, { cwd: root }, extras);

/** The UsageError that parsing `argv` throws. */
function usageError(argv: string[]): UsageError {
  try {
    parse(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error(`parsing ${JSON.stringify(argv)} did not throw`);
}

const trace: ExtraOption = { name: "trace", type: "string", help: "--trace ID          save every iteration" };
const quiet: ExtraOption = { name: "quiet", type: "boolean", help: "--quiet             print less" };

describe("parseCliArgs", () => {
  it("has the contract's defaults", () => {
    expect(parse([])).toEqual({
      prompt: undefined,
      maxTurns: DEFAULT_MAX_TURNS,
      json: false,
      offline: false,
      model: undefined,
      cwd: root,
      bashTimeoutSeconds: DEFAULT_BASH_TIMEOUT_SECONDS,
      modelTimeoutSeconds: DEFAULT_MODEL_TIMEOUT_SECONDS,
      help: false,
      extra: {},
    });
    expect(DEFAULT_MAX_TURNS).toBe(8);
    expect(DEFAULT_BASH_TIMEOUT_SECONDS).toBe(120);
    expect(DEFAULT_MODEL_TIMEOUT_SECONDS).toBe(120);
  });

  it("joins the words of the prompt", () => {
    expect(parse(["list", "the", "files"]).prompt).toBe("list the files");
  });

  it.each([[[""]], [["  "]], [["", " \t"]], [["--json", "  "]]])(
    "refuses a prompt of %j: an error, not the REPL",
    (argv) => {
      expect(usageError(argv).message).toBe("the prompt is empty (to start the REPL, give no prompt at all)");
    },
  );

  it("reads no prompt at all, or -- alone, as the REPL", () => {
    expect(parse([]).prompt).toBeUndefined();
    expect(parse(["--"]).prompt).toBeUndefined();
  });

  it("takes words after -- as the prompt, even when they look like options", () => {
    expect(parse(["--", "--json", "is", "a", "flag"]).prompt).toBe("--json is a flag");
  });

  it("reads every option", () => {
    const options = parse([
      "--max-turns",
      "3",
      "--json",
      "--offline",
      "--model",
      "claude-x",
      "--cwd",
      "sub",
      "--bash-timeout=2.5",
      "--model-timeout",
      "0.5",
      "hello",
    ]);
    expect(options).toMatchObject({
      prompt: "hello",
      maxTurns: 3,
      json: true,
      offline: true,
      model: "claude-x",
      cwd: join(root, "sub"),
      bashTimeoutSeconds: 2.5,
      modelTimeoutSeconds: 0.5,
      help: false,
    });
  });

  it("takes an absolute --cwd as it is", () => {
    expect(parse(["--cwd", join(root, "sub")]).cwd).toBe(join(root, "sub"));
  });

  it.each([["-h"], ["--help"]])("reads %s as help", (flag) => {
    expect(parse([flag]).help).toBe(true);
  });

  it("lets --help win over a --cwd that does not exist", () => {
    expect(parse(["--help", "--cwd", "nowhere"]).help).toBe(true);
  });

  it("lets --help win over a bad value", () => {
    expect(parse(["--max-turns", "0", "--help"]).help).toBe(true);
    expect(parse(["-h", "--bash-timeout", "soon"]).help).toBe(true);
  });

  it.each([
    [["--max-turns", "0"], "--max-turns expects a whole number of at least 1, got 0"],
    [["--max-turns", "2.5"], "--max-turns expects a whole number of at least 1, got 2.5"],
    [["--max-turns", "many"], "--max-turns expects a whole number of at least 1, got many"],
    [["--max-turns", ""], '--max-turns expects a whole number of at least 1, got ""'],
    [["--max-turns", "-3"], "--max-turns expects a whole number of at least 1, got -3"],
    [["--bash-timeout", "0"], "--bash-timeout expects a positive number of seconds, got 0"],
    [["--bash-timeout", "-1"], "--bash-timeout expects a positive number of seconds, got -1"],
    [["--bash-timeout", "-0.5", "go"], "--bash-timeout expects a positive number of seconds, got -0.5"],
    [["--bash-timeout=-5"], "--bash-timeout expects a positive number of seconds, got -5"],
    [["--bash-timeout", "Infinity"], "--bash-timeout expects a positive number of seconds, got Infinity"],
    [["--bash-timeout", "soon"], "--bash-timeout expects a positive number of seconds, got soon"],
    [["--bash-timeout", " "], '--bash-timeout expects a positive number of seconds, got " "'],
    [["--model-timeout", "0"], "--model-timeout expects a positive number of seconds, got 0"],
    [["--model-timeout", "-2"], "--model-timeout expects a positive number of seconds, got -2"],
    [["--model-timeout", "later"], "--model-timeout expects a positive number of seconds, got later"],
  ])("refuses %j with one clear line", (argv, message) => {
    expect(usageError(argv).message).toBe(message);
  });

  it("keeps a negative number after -- as the prompt", () => {
    expect(parse(["--bash-timeout", "5", "--", "-1", "is", "negative"]).prompt).toBe("-1 is negative");
  });

  it("refuses a --cwd that is not a directory", () => {
    expect(usageError(["--cwd", "nowhere"]).message).toBe(`--cwd: ${join(root, "nowhere")} is not a directory`);
  });

  it.each([
    [["--frobnicate"], /--frobnicate/],
    [["-x"], /-x/],
    [["--max-turns"], /--max-turns/],
    [["--json=yes"], /--json/],
  ])("refuses %j in one line that points to --help", (argv, mentions) => {
    const { message } = usageError(argv);
    expect(message).toMatch(mentions);
    expect(message).toMatch(/\(see --help\)$/);
    expect(message).not.toContain("\n");
  });

  it("reads a chapter's own options into extra", () => {
    expect(parse(["--trace", "abc", "--quiet"], [trace, quiet]).extra).toEqual({ trace: "abc", quiet: true });
    expect(parse([], [trace, quiet]).extra).toEqual({ trace: undefined, quiet: undefined });
  });

  it("reads every value of a repeatable option, in the order given", () => {
    const allow: ExtraOption = { name: "allow", type: "string", multiple: true, help: "--allow RULE  x" };
    expect(parse(["--allow", "Bash(ls)", "go", "--allow=Read(src/**)"], [allow])).toMatchObject({
      extra: { allow: ["Bash(ls)", "Read(src/**)"] },
      prompt: "go",
    });
    expect(parse(["go"], [allow]).extra).toEqual({ allow: undefined });
  });

  describe("an option whose value may be left out", () => {
    const traceId: ExtraOption = { name: "trace", type: "string", optionalValue: true, help: "--trace[=ID]  x" };
    const withTrace = (argv: string[]) => parseCliArgs(argv, { cwd: root }, [traceId]);

    it("reads it alone as true, with =value as the value, and absent as undefined", () => {
      expect(withTrace(["--trace"]).extra).toEqual({ trace: true });
      expect(withTrace(["--trace", "--json", "go"])).toMatchObject({
        extra: { trace: true },
        json: true,
        prompt: "go",
      });
      expect(withTrace(["--trace=demo", "go"])).toMatchObject({ extra: { trace: "demo" }, prompt: "go" });
      expect(withTrace(["go"]).extra).toEqual({ trace: undefined });
    });

    it("takes a quoted prompt after it as the prompt", () => {
      expect(withTrace(["--trace", "What is the current git branch?"])).toMatchObject({
        extra: { trace: true },
        prompt: "What is the current git branch?",
      });
    });

    it("refuses a bare word after it rather than guess whether it is the value or the prompt", () => {
      for (const argv of [
        ["--trace", "demo", "What is the branch?"],
        ["--trace", "demo"],
      ]) {
        expect(() => withTrace(argv)).toThrow(UsageError);
        expect(() => withTrace(argv)).toThrow(
          '--trace takes its value joined with "=": write --trace=demo (or, if "demo" begins the prompt, put --trace after it)',
        );
      }
    });

    it("leaves words after -- alone, and lets --help win", () => {
      expect(withTrace(["--trace", "--", "demo"])).toMatchObject({ extra: { trace: true }, prompt: "demo" });
      expect(withTrace(["--trace", "demo", "--help"]).help).toBe(true);
    });
  });

  it("refuses a chapter's option in a chapter that does not have it", () => {
    expect(usageError(["--trace", "abc"]).message).toMatch(/--trace/);
  });
});

describe("usage", () => {
  const text = usage("s01", "one bounded loop and a bash tool", [trace]);

  it("names the command, its summary and its REPL prompt", () => {
    expect(text.split("\n")[0]).toBe("s01: one bounded loop and a bash tool");
    expect(text).toContain("usage: pnpm s01 [options] [prompt]");
    expect(text).toContain('("s01 >> ", q / exit / Ctrl-D quits');
  });

  it.each(["--max-turns N", "--json", "--offline", "--model ID", "--cwd DIR", "--bash-timeout S", "-h, --help"])(
    "lists %s",
    (option) => {
      expect(text).toContain(`  ${option}`);
    },
  );

  it("lists a chapter's own options", () => {
    expect(text).toContain("  --trace ID          save every iteration");
  });

  it("adds a chapter's own environment lines under the contract's", () => {
    const lines = usage("s00", "tools", [], {}, [], ["OTHER_KEY for another provider"]).split("\n");
    const at = lines.findIndex((line) => line.startsWith("environment: ANTHROPIC_API_KEY"));
    expect(lines[at + 1]).toBe("             OTHER_KEY for another provider");
    expect(lines[at + 2]).toMatch(/^ {13}\(from the shell or \.env/);
  });

  it("states the defaults and the exit statuses", () => {
    expect(text).toContain("(default 8)");
    expect(text).toContain("(default 120)");
    expect(text).toContain("exit status: 0 final_answer, 2 max_turns, 3 max_tokens, 1 error, 130 interrupted");
    expect(text).toContain(`(default: MODEL_ID, else ${DEFAULT_MODEL})`);
  });

  it("adds a chapter's own exit statuses on a line of their own", () => {
    const lines = usage("s02", "tools", [], { repeated_tool_call: 2, aborted: 130 }).split("\n");
    expect(lines.slice(-2)).toEqual([
      "exit status: 0 final_answer, 2 max_turns, 3 max_tokens, 1 error, 130 interrupted",
      "             this chapter: 2 repeated_tool_call, 130 aborted",
    ]);
    expect(text.split("\n").at(-1)).toMatch(/^exit status: /);
  });
});
