/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`) or leaves green
 * (`expect: "pass"`). Test infrastructure, not part of the chapter; the fields are described in
 * docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // the seam left unused: runToolCalls runs every call with dispatch, rm included
    id: 1,
    file: "src/agent-loop.ts",
    find: "const outputs = await runToolCalls(tools, turn.toolCalls, context, emit, options.runCall);",
    replace: "const outputs = await runToolCalls(tools, turn.toolCalls, context, emit);",
    test: "answers a refused call with why",
    expect: "fail",
  },
  {
    // no canRead in the context: glob and grep walk into .env and denied directories
    id: 2,
    file: "src/permission-gate.ts",
    find: "const allowed = () => run(tools, call, { ...context, canRead });",
    replace: "const allowed = () => run(tools, call, context);",
    test: "keeps glob and grep from reading what a Read rule denies",
    expect: "fail",
  },
  {
    // always offered as a prefix rule for the program: one rm -rf build allows every rm
    id: 3,
    file: "src/rules/allow-rules.ts",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
    find: 'rules.push(`Bash(${words.join(" ")})`);',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
    replace: "rules.push(`Bash(${words[0]}:*)`);",
    test: "names only the part of a line that asks, exactly",
    expect: "fail",
  },
  {
    // questions not chained: two reads that ask put two questions at once
    id: 4,
    file: "src/permission-gate.ts",
    find: "const asked = questions.then(() => askAbout(call, options, context.cwd));",
    replace: "const asked = askAbout(call, options, context.cwd);",
    test: "puts one question at a time",
    expect: "fail",
  },
];
