import type { ToolCall } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { allowRulesFor, decide, type PermissionRule, parseRule, withAllowRules } from "../src/index.ts";
import { bash, settingsFor, tool } from "./temp-project.ts";

describe("allowRulesFor", () => {
  it("names only the part of a line that asks, exactly", () => {
    const { cwd, settings } = settingsFor({ allow: ["Bash(git diff:*)"] });
    expect(allowRulesFor(bash("git diff && rm -rf build"), settings, "default", cwd)).toEqual(["Bash(rm -rf build)"]);
  });

  it("names every command a line needs, the program a wrapper runs, and a file a redirection writes", () => {
    const { cwd, settings } = settingsFor(undefined);
    expect(allowRulesFor(bash("timeout 5 npm test | tee out.txt > log.txt"), settings, "default", cwd)).toEqual([
      "Bash(npm test)",
      "Bash(tee out.txt)",
      "Edit(/log.txt)",
    ]);
  });

  it("names an edit's file, anchored at the working directory, its glob characters escaped", () => {
    const { cwd, settings } = settingsFor(undefined);
    expect(allowRulesFor(tool("write_file", { path: "src/[id].ts", content: "" }), settings, "default", cwd)).toEqual([
      "Edit(/src/\\[id\\].ts)",
    ]);
  });

  it("gives none where no allow rule can let the call through", () => {
    const { cwd, settings } = settingsFor({ ask: ["Bash(git push:*)"] });
    const none = (call: ToolCall) => allowRulesFor(call, settings, "default", cwd);
    expect(none(bash("git push origin main"))).toEqual([]); // an ask rule beats any allow rule
    expect(none(bash('eval "$CLEAN"'))).toEqual([]); // the parser cannot see what runs
    expect(none(bash("rm *.log"))).toEqual([]); // a * in a rule is a wildcard, not this command
    expect(none(tool("mystery", {}))).toEqual([]); // no rule names a tool the engine does not know
  });

  it("gives rules that, added, make decide allow the call", () => {
    const { cwd, settings } = settingsFor({ deny: ["Bash(curl:*)"] });
    const call = bash("git status; npm run build && echo done > done.txt");
    const rules = allowRulesFor(call, settings, "default", cwd);
    const parsed = rules.map(parseRule) as PermissionRule[];
    expect(decide(call, settings, "default", cwd).behavior).toBe("ask");
    expect(decide(call, withAllowRules(settings, parsed), "default", cwd).behavior).toBe("allow");
  });
});
