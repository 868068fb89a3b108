import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decide, decidePath, type PermissionMode } from "../src/index.ts";
import { bash, settingsFor, tempProject, tool } from "./temp-project.ts";

describe("decide: rules", () => {
  it("denies a line when one of its simple commands is denied, and says which one", () => {
    const { cwd, settings } = settingsFor({ allow: ["Bash(git diff:*)"], deny: ["Bash(rm:*)"] });
    expect(decide(bash("git diff && rm -rf build"), settings, "default", cwd)).toEqual({
      behavior: "deny",
      reason:
        "denied by rule Bash(rm:*) in .harness/settings.json: the simple command `rm -rf build` in `git diff && rm -rf build`",
      rule: "Bash(rm:*)",
      source: ".harness/settings.json",
    });
  });

  it("lets deny beat ask beat allow, whatever the order they are written in", () => {
    const { cwd, settings } = settingsFor({
      allow: ["Bash"],
      ask: ["Bash(git push:*)"],
      deny: ["Bash(git push --force:*)"],
    });
    expect(decide(bash("git status"), settings, "default", cwd).behavior).toBe("allow");
    expect(decide(bash("git push origin main"), settings, "default", cwd)).toMatchObject({
      behavior: "ask",
      rule: "Bash(git push:*)",
    });
    expect(decide(bash("git push --force origin main"), settings, "default", cwd)).toMatchObject({
      behavior: "deny",
      rule: "Bash(git push --force:*)",
    });
  });

  it("decides an MCP tool (s14) by its server's rules and its own, deny beating ask beating allow", () => {
    const { cwd, settings } = settingsFor({ allow: ["mcp__files"], ask: ["mcp__files__write"], deny: ["mcp__web__*"] });
    expect(decide(tool("mcp__files__read", {}), settings, "default", cwd)).toMatchObject({
      behavior: "allow",
      rule: "mcp__files",
    });
    expect(decide(tool("mcp__files__write", {}), settings, "default", cwd)).toMatchObject({
      behavior: "ask",
      rule: "mcp__files__write",
    });
    expect(decide(tool("mcp__web__fetch", {}), settings, "bypassPermissions", cwd).behavior).toBe("deny");
    expect(decide(tool("mcp__filesystem__read", {}), settings, "default", cwd)).toMatchObject({
      behavior: "ask",
      reason: "asks (in default mode a command asks): the tool mcp__filesystem__read", // not mcp__files: a server by its whole name
    });
  });

  it("allows a line only when every simple command in it is allowed", () => {
    const { cwd, settings } = settingsFor({ allow: ["Bash(git diff:*)", "Bash(wc:*)"] });
    const allowed = decide(bash("git diff | wc -l"), settings, "default", cwd);
    expect(allowed.behavior).toBe("allow");
    expect(allowed.reason).toContain("the simple command `wc -l` by rule Bash(wc:*) in .harness/settings.json");
    expect(decide(bash("git diff | wc -l; curl x"), settings, "default", cwd)).toMatchObject({
      behavior: "ask",
      reason: "asks (in default mode a command asks): the simple command `curl x` in `git diff | wc -l; curl x`",
    });
  });

  it("allows `sh -c` with a literal script by what the script runs", () => {
    const { cwd, settings } = settingsFor({ allow: ["Bash(git status)"] });
    expect(decide(bash("sh -c 'git status'"), settings, "default", cwd).behavior).toBe("allow");
    expect(decide(bash("sh -c 'git status; npm i'"), settings, "default", cwd).behavior).toBe("ask");
  });

  it("names rules from the command line by their option", () => {
    const { cwd, settings } = settingsFor(undefined, {}, { deny: ["Bash(curl:*)"] });
    expect(decide(bash("curl https://example.com"), settings, "bypassPermissions", cwd)).toMatchObject({
      behavior: "deny",
      source: "--deny",
      reason: "denied by rule Bash(curl:*) from --deny: the simple command `curl https://example.com`",
    });
  });

  it("reaches glob and grep with Read rules, write_file with Edit and Write rules, edit_file with Edit rules", () => {
    const { cwd, settings } = settingsFor({ deny: ["Read(secrets/**)", "Write(*.lock)", "Edit(vendor/**)"] });
    expect(decide(tool("grep", { pattern: "KEY", path: "secrets" }), settings, "default", cwd).behavior).toBe("deny");
    expect(decide(tool("glob", { pattern: "*", path: "secrets/a" }), settings, "default", cwd).behavior).toBe("deny");
    expect(
      decide(tool("write_file", { path: "pnpm.lock", content: "" }), settings, "bypassPermissions", cwd).behavior,
    ).toBe("deny");
    expect(decide(tool("edit_file", { path: "pnpm.lock" }), settings, "bypassPermissions", cwd).behavior).toBe("allow");
    expect(
      decide(tool("write_file", { path: "vendor/x.js", content: "" }), settings, "bypassPermissions", cwd).behavior,
    ).toBe("deny");
    expect(decide(tool("edit_file", { path: "vendor/x.js" }), settings, "bypassPermissions", cwd).behavior).toBe(
      "deny",
    );
  });

  it("decides a shell redirection into a file as an edit of that file", () => {
    const { cwd, settings } = settingsFor({ allow: ["Bash(echo:*)", "Edit(notes/**)"], deny: ["Edit(src/**)"] });
    expect(decide(bash("echo hi > notes/a.txt"), settings, "default", cwd).behavior).toBe("allow");
    expect(decide(bash("echo hi > other.txt"), settings, "default", cwd)).toMatchObject({
      behavior: "ask",
      reason: "asks (in default mode an edit asks): the redirection `> other.txt` in `echo hi > other.txt`",
    });
    expect(decide(bash("echo hi >> src/main.ts"), settings, "bypassPermissions", cwd)).toMatchObject({
      behavior: "deny",
      rule: "Edit(src/**)",
    });
    expect(decide(bash("echo hi > /dev/null 2>&1"), settings, "default", cwd).behavior).toBe("allow");
    expect(decide(bash("echo hi > src/-x"), settings, "bypassPermissions", cwd).behavior).toBe("deny");
    expect(decide(bash("cd src && echo hi > -x"), settings, "bypassPermissions", cwd).behavior).toBe("deny");
    expect(decide(bash('echo hi > "$OUT"'), settings, "default", cwd).behavior).toBe("ask");
  });

  it("lets acceptEdits run a redirection into a file inside the working directory, and ask outside it", () => {
    const { cwd, settings } = settingsFor({ allow: ["Bash(echo:*)"] });
    expect(decide(bash("echo x > notes.txt"), settings, "acceptEdits", cwd).behavior).toBe("allow");
    expect(decide(bash("echo x > /tmp/notes.txt"), settings, "acceptEdits", cwd)).toMatchObject({
      behavior: "ask",
      reason:
        "asks (acceptEdits mode asks for edits outside the working directory): the redirection `> /tmp/notes.txt` in `echo x > /tmp/notes.txt`",
    });
  });

  it("asks about a glob too wide to expand, rather than walking the whole disk", () => {
    const { cwd, settings } = settingsFor({ allow: ["Bash(ls:*)"] });
    expect(decide(bash("ls /*/*/*"), settings, "default", cwd)).toMatchObject({
      behavior: "ask",
      reason:
        "asks (in default mode what the parser cannot see through asks): `/*/*/*`, because the glob is too wide to expand here in `ls /*/*/*`",
    });
    expect(decide(bash("ls src/*"), settings, "default", cwd).behavior).toBe("allow");
  });

  it("checks files relative to the directory a line changes into", () => {
    const { cwd, settings } = settingsFor({ allow: ["Bash(cd:*)", "Bash(cat:*)"], deny: ["Read(/config/keys/**)"] });
    expect(decide(bash("cd config && cat keys/prod.pem"), settings, "default", cwd).behavior).toBe("deny");
  });

  it("lets a tool it does not know fall to the mode", () => {
    const { cwd, settings } = settingsFor(undefined);
    expect(decide(tool("web_fetch", { url: "x" }), settings, "default", cwd).behavior).toBe("ask");
    expect(decide(tool("web_fetch", { url: "x" }), settings, "bypassPermissions", cwd).behavior).toBe("allow");
  });
});

describe("decide: modes", () => {
  const calls = {
    read: tool("read_file", { path: "README.md" }),
    edit: tool("edit_file", { path: "src/a.ts", old_string: "a", new_string: "b" }),
    "edit outside": tool("write_file", { path: "/tmp/elsewhere.txt", content: "" }),
    "edit .git": tool("write_file", { path: ".git/config", content: "" }),
    bash: bash("npm test"),
    "allowed bash": bash("git status"),
    unseen: bash("$CMD x"),
  };
  const table: Record<PermissionMode, Record<keyof typeof calls, string>> = {
    default: {
      read: "allow",
      edit: "ask",
      "edit outside": "ask",
      "edit .git": "ask",
      bash: "ask",
      "allowed bash": "allow",
      unseen: "ask",
    },
    acceptEdits: {
      read: "allow",
      edit: "allow",
      "edit outside": "ask",
      "edit .git": "ask",
      bash: "ask",
      "allowed bash": "allow",
      unseen: "ask",
    },
    plan: {
      read: "allow",
      edit: "deny",
      "edit outside": "deny",
      "edit .git": "deny",
      bash: "deny",
      "allowed bash": "deny",
      unseen: "deny",
    },
    bypassPermissions: {
      read: "allow",
      edit: "allow",
      "edit outside": "allow",
      "edit .git": "allow",
      bash: "allow",
      "allowed bash": "allow",
      // what the engine cannot prove asks in every mode: no deny rule can be matched against it
      unseen: "ask",
    },
  };

  it.each(Object.keys(table) as PermissionMode[])("%s decides what no rule names as the mode table says", (mode) => {
    const { cwd, settings } = settingsFor({ allow: ["Bash(git status)"] });
    const got = Object.fromEntries(
      Object.entries(calls).map(([name, call]) => [name, decide(call, settings, mode, cwd).behavior]),
    );
    expect(got).toEqual(table[mode]);
  });

  it("tells the model it is planning when plan mode refuses a call, allow rule or not", () => {
    const { cwd, settings } = settingsFor({ allow: ["Bash(git status)", "Edit"] });
    for (const call of [bash("git status"), calls.edit]) {
      const decision = decide(call, settings, "plan", cwd);
      expect(decision.behavior).toBe("deny");
      expect(decision.reason).toMatch(/^refused: you are in plan mode: only read_file, glob and grep run/);
    }
  });

  it("skips ask rules in bypassPermissions and keeps deny rules", () => {
    const { cwd, settings } = settingsFor({ ask: ["Bash(git push:*)"], deny: ["Bash(rm:*)"] });
    expect(decide(bash("git push"), settings, "bypassPermissions", cwd).behavior).toBe("allow");
    expect(decide(bash("rm -rf x"), settings, "bypassPermissions", cwd).behavior).toBe("deny");
  });
});

describe("decide: the default denies", () => {
  const files = { ".env": "KEY=1\n", ".env.local": "KEY=2\n", "src/a.ts": "", ".harness/notes.txt": "" };

  it.each(["default", "acceptEdits", "plan", "bypassPermissions"] as const)(
    "keep .env and .harness out of reach in %s mode",
    (mode) => {
      const { cwd, settings } = settingsFor(undefined, files);
      const denied = [
        tool("read_file", { path: ".env" }),
        tool("read_file", { path: "config/../.env.local" }),
        tool("grep", { pattern: "KEY", path: ".env" }),
        tool("read_file", { path: ".harness/settings.json" }),
        tool("write_file", { path: ".harness/settings.json", content: "{}" }),
      ];
      for (const call of denied)
        expect(decide(call, settings, mode, cwd), JSON.stringify(call.input)).toMatchObject({
          behavior: "deny",
          source: "default",
        });
      const readable = decide(tool("read_file", { path: "src/a.ts" }), settings, mode, cwd);
      expect(readable.behavior).toBe("allow");
    },
  );

  it("keep them out of reach through bash wherever the parser sees the file", () => {
    const { cwd, settings } = settingsFor(
      { allow: ["Bash(cat:*)", "Bash(grep:*)", "Bash(cp:*)", "Bash(git:*)"] },
      files,
    );
    for (const line of [
      "cat .env",
      "cat < .env",
      "grep KEY .env",
      "cat .e*",
      "cat ./src/../.env.local",
      "cp .env /tmp/x",
      "git show HEAD:.env",
      "cat .harness/notes.txt",
    ]) {
      expect(decide(bash(line), settings, "bypassPermissions", cwd), line).toMatchObject({
        behavior: "deny",
        source: "default",
      });
    }
    expect(decide(bash("cat src/a.ts"), settings, "default", cwd).behavior).toBe("allow");
  });

  it("keep the harness's own files out of reach, the home's too, and leave a skill's folder readable but not editable", () => {
    const home = tempProject({
      ".harness/trusted-projects.json": "{}\n",
      ".harness/projects/-p/traces/t1.jsonl": "{}\n",
      ".harness/projects/-p/sessions/s1.jsonl": "{}\n",
      ".harness/agents/reviewer.md": "---\n---\n",
      ".harness/skills/notes/SKILL.md": "---\n---\n",
    });
    const { cwd, settings } = settingsFor(
      { allow: ["Bash(cat:*)"] },
      {
        ".harness/settings.local.json": "{}\n",
        ".harness/agents/explorer.md": "---\n---\n",
        ".harness/skills/deploy/SKILL.md": "---\n---\n",
        ".harness/skills/deploy/steps.md": "1. build\n",
      },
    );
    const own = [
      ".harness/settings.json",
      ".harness/settings.local.json",
      ".harness/agents/explorer.md",
      join(home, ".harness", "trusted-projects.json"),
      join(home, ".harness", "projects", "-p", "traces", "t1.jsonl"),
      join(home, ".harness", "projects", "-p", "sessions", "s1.jsonl"),
      join(home, ".harness", "agents", "reviewer.md"),
    ];
    for (const path of own) {
      for (const call of [
        tool("read_file", { path }),
        tool("glob", { pattern: "*", path }),
        tool("grep", { pattern: "x", path }),
        bash(`cat ${path}`),
      ])
        expect(decide(call, settings, "bypassPermissions", cwd), JSON.stringify(call)).toMatchObject({
          behavior: "deny",
          source: "default",
        });
    }
    // a search over the record of projects is a read of every trace and transcript in it, and one
    // over a whole .harness a read of its settings
    const records = tool("grep", { pattern: "x", path: join(home, ".harness", "projects") });
    expect(decide(records, settings, "default", cwd)).toMatchObject({ behavior: "deny", source: "default" });
    for (const command of ["grep -r KEY .harness", `grep -r KEY ${join(home, ".harness")}`, "tar cf - .harness"]) {
      expect(decide(bash(command), settings, "bypassPermissions", cwd), command).toMatchObject({
        behavior: "deny",
        source: "default",
      });
    }
    expect(decide(bash("grep -r build .harness/skills"), settings, "bypassPermissions", cwd).behavior).toBe("allow");
    for (const dir of [join(cwd, ".harness", "skills", "deploy"), join(home, ".harness", "skills", "notes")]) {
      for (const call of [
        tool("read_file", { path: join(dir, "SKILL.md") }),
        tool("glob", { pattern: "*.md", path: dir }),
        tool("grep", { pattern: "build", path: dir }),
        bash(`cat ${join(dir, "SKILL.md")}`),
      ])
        expect(decide(call, settings, "default", cwd).behavior, JSON.stringify(call)).toBe("allow");
      const edit = tool("write_file", { path: join(dir, "SKILL.md"), content: "" });
      expect(decide(edit, settings, "bypassPermissions", cwd)).toMatchObject({
        behavior: "deny",
        rule: "Edit(//**/.harness/**)",
      });
    }
  });

  it("follow a link a cloned project ships in its skills folder to the harness's own files, and refuse it", () => {
    const home = tempProject({ ".harness/projects/-p/traces/t1.jsonl": "{}\n" });
    const { cwd, settings } = settingsFor({ allow: ["Bash(cat:*)"] }, { ".harness/skills/ok/SKILL.md": "---\n---\n" });
    symlinkSync(join(home, ".harness", "projects"), join(cwd, ".harness", "skills", "records"));
    symlinkSync(join(cwd, ".harness", "settings.json"), join(cwd, ".harness", "skills", "ok", "limits.md"));
    for (const call of [
      tool("read_file", { path: ".harness/skills/records/-p/traces/t1.jsonl" }),
      tool("grep", { pattern: "x", path: ".harness/skills/records" }),
      tool("read_file", { path: ".harness/skills/ok/limits.md" }),
      bash("cat .harness/skills/records/-p/traces/t1.jsonl"),
      bash("cat .harness/skills/ok/limits.md"),
    ])
      expect(decide(call, settings, "bypassPermissions", cwd), JSON.stringify(call)).toMatchObject({
        behavior: "deny",
        source: "default",
      });
  });

  it("go only when settings.local.json switches them off", () => {
    const { cwd, settings } = settingsFor(undefined, {
      ...files,
      ".harness/settings.local.json": '{"permissions":{"disableDefaultDenies":true}}',
    });
    expect(decide(tool("read_file", { path: ".env" }), settings, "default", cwd).behavior).toBe("allow");
  });
});

describe("decidePath", () => {
  it("decides one file, so a search can skip what a rule denies", () => {
    const { cwd, settings } = settingsFor(undefined, { ".env": "" });
    expect(decidePath("read", "sub/.env", settings, "default", cwd).behavior).toBe("deny");
    expect(decidePath("read", "sub/a.txt", settings, "default", cwd).behavior).toBe("allow");
    expect(decidePath("edit", "sub/a.txt", settings, "acceptEdits", cwd).behavior).toBe("allow");
  });
});

describe("decide: links", () => {
  it("lets acceptEdits write through a link only when it leads inside the working directory", () => {
    const outside = tempProject({ "target.txt": "" });
    const { cwd, settings } = settingsFor(undefined, { "inside.txt": "" });
    symlinkSync(join(outside, "target.txt"), join(cwd, "away.txt"));
    symlinkSync(join(cwd, "inside.txt"), join(cwd, "here.txt"));
    expect(decide(tool("write_file", { path: "away.txt", content: "" }), settings, "acceptEdits", cwd).behavior).toBe(
      "ask",
    );
    expect(decide(tool("write_file", { path: "here.txt", content: "" }), settings, "acceptEdits", cwd).behavior).toBe(
      "allow",
    );
  });
});
