/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: the build
 * exercise's stub (`kind: "build"`) and the test file it turns red, then changes that each name the
 * test they turn red (`expect: "fail"`). Test infrastructure, not part of the chapter; the fields
 * are described in docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // build: the rules' decision and the hooks' verdict put together; the stub lets the hooks' verdict win
    // (the text quotes the answer, so its excerpt test goes red with the stub too)
    id: 1,
    kind: "build",
    file: "src/runner/combine-permission.ts",
    find: '  if (rules.behavior === "deny") return byRules;\n  if (hooks?.stop !== undefined) return { behavior: "deny", reason: hooks.stop, decidedBy: "hooks" };\n  const fromHooks = hooks?.permission;\n  if (!fromHooks) return byRules;\n  switch (fromHooks.behavior) {\n    case "deny":\n      return { behavior: "deny", reason: fromHooks.reason, decidedBy: "hooks" };\n    case "ask":\n      // the rules\' own question is put when they ask; the hook\'s, when they allow\n      if (rules.behavior === "ask") return byRules;\n      return { behavior: "ask", reason: fromHooks.reason, decidedBy: "hooks" };\n    case "allow":\n      // an allow answers the mode\'s prompt, never a rule the user wrote\n      if (rules.behavior === "ask" && rules.rule === undefined) {\n        return { behavior: "allow", reason: fromHooks.reason, decidedBy: "hooks" };\n      }\n      return byRules;\n  }\n',
    replace:
      '  // the stub: the hooks\' verdict wins over the rules; write the table instead\n  if (hooks?.stop !== undefined) return { behavior: "deny", reason: hooks.stop, decidedBy: "hooks" };\n  const fromHooks = hooks?.permission;\n  if (!fromHooks) return byRules;\n  return { behavior: fromHooks.behavior, reason: fromHooks.reason, decidedBy: "hooks" };\n',
    test: "combinePermission|quotes every ts excerpt",
    expect: "fail",
  },
  {
    // exit 2 read as one more failing exit: an error, and nothing blocks
    id: 2,
    file: "src/runner/read-hook-run.ts",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
    find: '  if (run.exitCode === 2) {\n    const reason = run.stderr.trim();\n    return { kind: "block", reason: reason === "" ? `${name} blocked this (exit 2) without saying why` : reason };\n  }\n',
    replace: "",
    test: "blocks a bash call when a PreToolUse hook exits 2",
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
