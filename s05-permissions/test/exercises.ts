/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`) or leaves green
 * (`expect: "pass"`). Test infrastructure, not part of the chapter; the fields are described in
 * docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // build: the order of the Bash rules (deny, then ask, then allow); the stub lets the first rule read decide
    // (the text quotes the answer, so its excerpt test goes red with the stub too)
    id: 1,
    kind: "build",
    file: "src/decide.ts",
    find: '  for (const rule of bash("deny")) {\n    if (words.some((layer) => names(rule, layer, true))) return rulePart("deny", rule, subject);\n  }\n  if (mode !== "bypassPermissions") {\n    for (const rule of bash("ask")) {\n      if (words.some((layer) => names(rule, layer, true))) return rulePart("ask", rule, subject);\n    }\n  }\n  // only what it runs is decided (`sh -c \'...\'`): nothing to allow here\n  if (allowLayer === null) return { behavior: "allow", by: "through what it runs", subject };\n  for (const rule of bash("allow")) {\n    if (names(rule, words[allowLayer], false)) return rulePart("allow", rule, subject);\n  }\n',
    replace:
      '  // the stub: the first Bash rule that names the command decides, in the order they were read\n  for (const rule of settings.rules.filter((r) => r.rule.tool === "Bash")) {\n    if (rule.behavior !== "allow" && words.some((layer) => names(rule, layer, true))) {\n      return rulePart(rule.behavior, rule, subject);\n    }\n    if (rule.behavior === "allow" && allowLayer !== null && names(rule, words[allowLayer], false)) {\n      return rulePart("allow", rule, subject);\n    }\n  }\n  if (allowLayer === null) return { behavior: "allow", by: "through what it runs", subject };\n',
    test: "deny beat ask beat allow|skips ask rules in bypassPermissions|before the subcommand|reordered flags|offers no always when no allow rule|quotes every ts excerpt",
    expect: "fail",
  },
  {
    // the seam left unused: runToolCalls runs every call with dispatch, rm included
    id: 2,
    file: "src/agent-loop.ts",
    find: "const outputs = await runToolCalls(tools, turn.toolCalls, context, emit, options.runCall);",
    replace: "const outputs = await runToolCalls(tools, turn.toolCalls, context, emit);",
    test: "answers a refused call with why",
    expect: "fail",
  },
  {
    // no canRead in the context: glob and grep walk into .env and denied directories
    id: 3,
    file: "src/permission-gate.ts",
    find: "const allowed = () => run(tools, call, { ...context, canRead });",
    replace: "const allowed = () => run(tools, call, context);",
    test: "keeps glob and grep from reading what a Read rule denies",
    expect: "fail",
  },
];
