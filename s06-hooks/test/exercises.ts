/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`). Test infrastructure, not
 * part of the chapter; the fields are described in docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // the hooks taken off the calls: s05's gate alone runs each call, and exit 2 blocks nothing
    id: 1,
    file: "src/main.ts",
    find: "agentLoop(send, history, { model, cwd, maxTurns, bashTimeoutMs, emit, signal, runCall, hooks })",
    replace: "agentLoop(send, history, { model, cwd, maxTurns, bashTimeoutMs, emit, signal, runCall: gate, hooks })",
    test: "blocks a bash call when a PreToolUse hook exits 2",
    expect: "fail",
  },
  {
    // the rules' deny loosened: a hook's verdict wins over everything
    id: 2,
    file: "src/runner/combine-permission.ts",
    find: 'if (rules.behavior === "deny") return byRules;',
    replace: "",
    test: "never lets a hook loosen a deny",
    expect: "fail",
  },
  {
    // the Stop bound taken away: a Stop hook that always blocks keeps sending the loop on
    id: 3,
    file: "src/loop-hooks.ts",
    find: "stopHookActive = true;",
    replace: "",
    test: "ends the run after exactly one more model call",
    expect: "fail",
  },
];
