/**
 * Issue 25 through the real CLI: every row the issue added to the evasion table, asked for by a
 * scripted model as one bash call, in default mode and in bypassPermissions, with the table's rules
 * given as --allow and --deny. The line never runs (build/ stays; for git, the remote never gets the
 * push) and the model reads why: the rule that denied it, or what the engine cannot prove and that
 * there was no one to ask. Then the secrets: write_file and edit_file of .env are refused in every
 * mode before the file is touched, and a refused edit says the same whether its guess was right.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import {
  reply,
  ScriptedModel,
  type ScriptStep,
  startScriptedServer,
  textReply,
  toolUse,
} from "@harness/scripted-model";
import { cleanUpAfter, cliRunner } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { main } from "../src/main.ts";
import { EVASIONS } from "./evasions.ts";

const { cleanEnv, project, runHere } = cliRunner("s05-permissions", { main });

/** The honest boundary's rules, as the user gives them on the command line. */
const RULES = [
  ...[
    "git:*",
    "echo:*",
    "printf:*",
    "cat:*",
    "grep:*",
    "find:*",
    "xargs:*",
    "python3:*",
    "tar:*",
    "npm:*",
    "docker:*",
  ].map((rule) => `--allow=Bash(${rule})`),
  ...["rm:*", "git push --force:*", "npm publish:*", "docker rm:*"].map((rule) => `--deny=Bash(${rule})`),
];

/** The scripted model with these replies, served on 127.0.0.1 until the test ends. */
async function serve(script: ScriptStep[]) {
  const model = new ScriptedModel({ script });
  const server = await startScriptedServer(model);
  cleanUpAfter(() => server.close());
  return { model, env: cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url, CMD: "rm" }) };
}

/** The tool results the model read with request `n` (from 0). */
function resultsRead(model: ScriptedModel, n: number): ToolResultBlockParam[] {
  const content = model.requests[n].body.messages.at(-1)?.content;
  return Array.isArray(content)
    ? (content.filter((block) => block.type === "tool_result") as ToolResultBlockParam[])
    : [];
}

/** A project with something to lose: build/, a script that removes it, a secret, and a remote to push to. */
function victim(): string {
  const cwd = project(
    { "build/app.js": "compiled\n", "clean.txt": "rm -rf build\n", ".env": "API_KEY=sk-demo-123\n" },
    { git: true },
  );
  const git = (...args: string[]) => execFileSync("git", args, { cwd, stdio: "ignore" });
  git("init", "-q", "--bare", "remote.git");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first");
  git("remote", "add", "origin", join(cwd, "remote.git"));
  return cwd;
}

/** True when the remote received a push of main. */
function pushed(cwd: string): boolean {
  try {
    execFileSync("git", ["--git-dir", join(cwd, "remote.git"), "rev-parse", "--verify", "-q", "main"], {
      stdio: "ignore",
    });
    return true;
  } catch {
    return false;
  }
}

const ISSUE_ROWS = EVASIONS.filter((evasion) => evasion.issue === 25);

describe.each(["default", "bypassPermissions"] as const)("pnpm s05 --permission-mode %s", (mode) => {
  it.each(ISSUE_ROWS.map((row) => [row.what, row] as const))("never runs %s, and says why", async (_what, row) => {
    const cwd = victim();
    const { model, env } = await serve([reply([toolUse("bash", { command: row.line })]), textReply("Done.")]);
    const { code } = await runHere(["--cwd", cwd, "--permission-mode", mode, ...RULES, "Run the line"], env);
    expect(code).toBe(0);
    expect(existsSync(join(cwd, "build", "app.js"))).toBe(true);
    expect(readFileSync(join(cwd, ".env"), "utf8")).toBe("API_KEY=sk-demo-123\n");
    expect(pushed(cwd)).toBe(false);
    const [result] = resultsRead(model, 1);
    expect(result.is_error).toBe(true);
    if (row.stoppedBy === "engine") {
      expect(result.content).toMatch(/^Error \[denied\]: denied by (?:rule Bash\(.+\) from --deny|the default rule)/);
    } else {
      // what the engine cannot prove is asked about, in every mode; with no terminal the answer is no,
      // and no rule is offered: no allow rule can let it through
      expect(result.content).toMatch(
        /^Error \[not_approved\]: .+, because .+ asks \(.+\), and the answer was no, so nothing ran\.$/s,
      );
    }
  });
});

describe("pnpm s05 and the secret files", () => {
  const SECRET = "API_KEY=sk-demo-123\n";

  it.each(["default", "acceptEdits", "bypassPermissions"] as const)(
    "refuses write_file and edit_file of .env in %s mode, before touching it: a right guess and a wrong one read the same",
    async (mode) => {
      const cwd = victim();
      const edit = (old: string) => toolUse("edit_file", { path: ".env", old_string: old, new_string: "API_KEY=x" });
      const { model, env } = await serve([
        reply([edit("API_KEY=sk-demo-123")]),
        reply([edit("API_KEY=sk-wrong-guess")]),
        reply([toolUse("write_file", { path: ".env", content: "API_KEY=mine\n" })]),
        reply([toolUse("bash", { command: "echo API_KEY=mine > .env.local" })]),
        textReply("Done."),
      ]);
      const { code } = await runHere(["--cwd", cwd, "--permission-mode", mode, "Rotate the key"], env);
      expect(code).toBe(0);
      expect(readFileSync(join(cwd, ".env"), "utf8")).toBe(SECRET);
      expect(existsSync(join(cwd, ".env.local"))).toBe(false);
      const [right, wrong, written, redirected] = [1, 2, 3, 4].map((n) => resultsRead(model, n)[0]);
      const refusal =
        "Error [denied]: denied by the default rule Edit(//**/.env*) (secrets and the harness's own files stay out of reach): ";
      expect(right).toMatchObject({ is_error: true, content: `${refusal}edit_file of .env` });
      expect(wrong.content).toBe(right.content);
      expect(written).toMatchObject({ is_error: true, content: `${refusal}write_file of .env` });
      expect(redirected).toMatchObject({ is_error: true, content: expect.stringContaining(refusal) });
    },
  );
});
