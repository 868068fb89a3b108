import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runSessionsCli } from "../src/list/sessions-cli.ts";
import { sessionsDir } from "../src/store/sessions-dir.ts";
import { CONVERSATION, tempDir, writeSession } from "./transcript-file.ts";

/** Run `pnpm sessions` in this process; what it printed and its status. */
function sessions(args: string[], cwd: string, home: string) {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const code = runSessionsCli(args, { stdout, stderr, env: { INIT_CWD: cwd, HARNESS_HOME: home } });
  return { code, stdout: String(stdout.read() ?? ""), stderr: String(stderr.read() ?? "") };
}

function setting() {
  const cwd = tempDir("s07-project-");
  const home = tempDir("s07-home-");
  const dir = sessionsDir(cwd, { HARNESS_HOME: home });
  mkdirSync(dir, { recursive: true });
  return { cwd, home, dir };
}

describe("pnpm sessions", () => {
  it("lists the project's sessions, the most recent first, with what each began with", () => {
    const { cwd, home, dir } = setting();
    expect(sessions(["list"], cwd, home).stdout).toBe(`no sessions yet in ${dir}\n`);
    const older = writeSession(dir, CONVERSATION.slice(0, 1));
    const newer = writeSession(dir);
    utimesSync(older.path, new Date("2026-01-01T10:00:00Z"), new Date("2026-01-01T10:00:00Z"));
    utimesSync(newer.path, new Date("2026-01-02T09:30:00Z"), new Date("2026-01-02T09:30:00Z"));
    const { code, stdout } = sessions(["list"], cwd, home);
    expect(code).toBe(0);
    expect(stdout).toBe(
      `${newer.id}  2026-01-02 09:30  4 messages  "What is the current git branch?"\n` +
        `${older.id}  2026-01-01 10:00  1 message  "What is the current git branch?"\n`,
    );
  });

  it("says which sessions cannot be read, and lists the others", () => {
    const { cwd, home, dir } = setting();
    const good = writeSession(dir);
    const id = crypto.randomUUID();
    writeFileSync(`${dir}/${id}.jsonl`, "not a transcript\n");
    const { stdout } = sessions(["list"], cwd, home);
    expect(stdout).toContain(`${good.id}  `);
    expect(stdout).toMatch(new RegExp(`^${id}  .* cannot be read: .*not a transcript`, "m"));
  });

  it("shows one session's messages in order: what was said, the calls, their results", () => {
    const { cwd, home, dir } = setting();
    const { id, path } = writeSession(dir);
    const { code, stdout } = sessions(["show", id.slice(0, 6)], cwd, home);
    expect(code).toBe(0);
    const created = JSON.parse(readFileSync(path, "utf8").split("\n")[0]).created;
    const shown = stdout.replace(/ · \d\d:\d\d:\d\d/g, " · HH:MM:SS");
    expect(shown).toBe(
      [
        `session ${id}`,
        `  created ${created} in /work/demo`,
        "[1] user · HH:MM:SS",
        "  What is the current git branch?",
        "[2] assistant · HH:MM:SS · scripted-model · 10 in / 2 out",
        '  → bash: {"command":"git branch --show-current"}',
        "[3] user · HH:MM:SS",
        "  ← main",
        "    [exit code 0]",
        "[4] assistant · HH:MM:SS · scripted-model · 10 in / 2 out",
        "  The current branch is main.",
        "",
      ].join("\n"),
    );
  });

  it.each([
    [["show", "ffff0000"], 'sessions: error: no session "ffff0000" in this project (pnpm sessions list shows them)\n'],
    [["show"], "sessions: error: show takes one session id (pnpm sessions list shows them)\n"],
    [
      ["show", "../../etc/passwd"],
      'sessions: error: no session "../../etc/passwd" in this project (pnpm sessions list shows them)\n',
    ],
  ])("says in one line what is wrong with %j", (args, error) => {
    const { cwd, home } = setting();
    expect(sessions(args, cwd, home)).toMatchObject({ code: 1, stdout: "", stderr: error });
  });

  it("prints its usage, as the error when asked for nothing it does", () => {
    const { cwd, home } = setting();
    expect(sessions(["--help"], cwd, home)).toMatchObject({ code: 0, stderr: "" });
    const none = sessions([], cwd, home);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^sessions: the conversations pnpm s07 wrote for this project\n/);
  });
});
