/**
 * The example hooks the chapter ships, each run through the runner as a reader would set them up:
 * copied into a project's `.harness/hooks/`, wired by examples/settings.json as the project's
 * committed settings, trusted once.
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { decideTrust, PROJECT_SETTINGS, trustProject } from "@harness/s05-permissions";
import type { ToolCall } from "@harness/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { continueAfterStop } from "../src/continue-after-stop.ts";
import { type HookSession, postToolUseInput, preToolUseInput, stopInput } from "../src/runner/hook-input.ts";
import { type LoadedHooks, loadHooks } from "../src/runner/load-hooks.ts";
import { runHooks } from "../src/runner/run-hooks.ts";
import { shippedHooks } from "../src/start-hooks.ts";

const EXAMPLES = join(dirname(fileURLToPath(import.meta.url)), "..", "examples");

let root: string;
let project: string;
let session: HookSession;
let loaded: LoadedHooks;
let runProjectHooks: boolean;
const savedNotifier = process.env.npm_config_update_notifier;

beforeAll(async () => {
  // the Stop example runs `npm test`: keep npm from asking the registry for a newer npm
  process.env.npm_config_update_notifier = "false";
  root = realpathSync(mkdtempSync(join(tmpdir(), "hook-examples-")));
  project = join(root, "project");
  mkdirSync(join(project, ".harness", "hooks"), { recursive: true });
  for (const file of readdirSync(EXAMPLES).filter((name) => name !== "settings.json")) {
    copyFileSync(join(EXAMPLES, file), join(project, ".harness", "hooks", file));
  }
  copyFileSync(join(EXAMPLES, "settings.json"), join(project, PROJECT_SETTINGS));
  // the project's tests fail while a file named `broken` exists
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ scripts: { test: "if [ -e broken ]; then echo '1 test failed: add.test.js'; exit 1; fi" } }),
  );
  loaded = loadHooks(project);
  const home = join(root, "home");
  trustProject(project, [shippedHooks(loaded)], { home });
  runProjectHooks = (await decideTrust(project, [shippedHooks(loaded)], { home })).trusted.includes("hooks");
  session = { sessionId: "examples", cwd: project };
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  if (savedNotifier === undefined) delete process.env.npm_config_update_notifier;
  else process.env.npm_config_update_notifier = savedNotifier;
});

const options = () => ({ cwd: project, runProjectHooks });
const bash = (command: string): ToolCall => ({ id: "toolu_1", name: "bash", input: { command } });

describe("examples/settings.json", () => {
  it("loads three project hooks without a problem, and they are trusted", () => {
    expect(loaded.problems).toEqual([]);
    expect(loaded.hooks.map((hook) => [hook.event, hook.matcher])).toEqual([
      ["PreToolUse", "bash"],
      ["PostToolUse", "edit_file|write_file"],
      ["Stop", ""],
    ]);
    expect(runProjectHooks).toBe(true);
  });
});

describe("block-git-push.mjs", { timeout: 60_000 }, () => {
  it.each(["git push", "git push origin main", "cd repo && git push -f", "git -C repo push", "git --no-pager push"])(
    "blocks %j with a reason for the model",
    async (command) => {
      const verdict = await runHooks(loaded.hooks, preToolUseInput(session, bash(command)), options());
      expect(verdict.permission).toEqual({
        behavior: "deny",
        reason: "git push is blocked by this project's hooks: commit, and leave the push to a person.",
      });
    },
  );

  it.each(["git status", "git log --grep push", "echo git push", "git stash push"])(
    "lets %j through",
    async (command) => {
      const verdict = await runHooks(loaded.hooks, preToolUseInput(session, bash(command)), options());
      expect(verdict.permission).toBeUndefined();
      expect(verdict.notices).toEqual([]);
      expect(verdict.runs).toHaveLength(1);
    },
  );
});

describe("strip-trailing-whitespace.mjs", { timeout: 60_000 }, () => {
  const write = (path: string, content: string): ToolCall => ({
    id: "toolu_2",
    name: "write_file",
    input: { path, content },
  });

  it("strips trailing spaces and tabs from the file just written, and tells the model and the user", async () => {
    writeFileSync(join(project, "notes.md"), "one  \ntwo\t\r\nthree\n  four \n");
    const verdict = await runHooks(
      loaded.hooks,
      postToolUseInput(session, write("notes.md", "..."), { content: "wrote notes.md", isError: false }),
      options(),
    );
    expect(readFileSync(join(project, "notes.md"), "utf8")).toBe("one\ntwo\r\nthree\n  four\n");
    expect(verdict.context).toEqual([
      "A formatter hook stripped trailing whitespace from 3 lines of notes.md; read it again before editing it.",
    ]);
    expect(verdict.notices).toEqual(["formatter: stripped trailing whitespace from 3 lines of notes.md"]);
  });

  it("matches edit_file by the same group, and leaves a clean file and a failed call alone", async () => {
    writeFileSync(join(project, "clean.txt"), "clean\n");
    const edit: ToolCall = {
      id: "t",
      name: "edit_file",
      input: { path: "clean.txt", old_string: "a", new_string: "b" },
    };
    const clean = await runHooks(
      loaded.hooks,
      postToolUseInput(session, edit, { content: "ok", isError: false }),
      options(),
    );
    expect(clean.runs).toHaveLength(1);
    expect(clean.context).toEqual([]);

    writeFileSync(join(project, "dirty.txt"), "dirty  \n");
    await runHooks(
      loaded.hooks,
      postToolUseInput(session, write("dirty.txt", "x"), { content: "Error [io] ...", isError: true }),
      options(),
    );
    expect(readFileSync(join(project, "dirty.txt"), "utf8")).toBe("dirty  \n");
  });

  it("does not run for other tools", async () => {
    const verdict = await runHooks(
      loaded.hooks,
      postToolUseInput(session, bash("ls"), { content: "", isError: false }),
      options(),
    );
    expect(verdict.runs).toEqual([]);
  });
});

describe("require-passing-tests.sh", { timeout: 60_000 }, () => {
  it("sends the loop on with the failures while the tests fail, and lets it stop once they pass", async () => {
    writeFileSync(join(project, "broken"), "");
    const failing = await runHooks(loaded.hooks, stopInput(session, false), options());
    const decision = continueAfterStop(failing, false);
    expect(decision.kind).toBe("continue");
    expect(decision.kind === "continue" && decision.message).toMatch(
      /^The tests fail: `npm test` exits with code 1\. Fix them before you finish; the last lines of its output:\n[\s\S]*1 test failed: add\.test\.js/,
    );

    rmSync(join(project, "broken"));
    const passing = await runHooks(loaded.hooks, stopInput(session, true), options());
    expect(passing.block).toBeUndefined();
    expect(passing.notices).toEqual([]);
    expect(continueAfterStop(passing, true)).toEqual({ kind: "stop" });
  });
});
