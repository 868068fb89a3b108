/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`). The first is the build
 * exercise (`kind: "build"`): its change is the stub the reader starts from, it turns only the
 * tests it names red, and the chapter's own code is the reference that passes the whole suite. Test
 * infrastructure, not part of the chapter; the fields are described in docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // the stub of the build exercise: a skill's allowed-tools never leave the rules
    id: 1,
    kind: "build",
    file: "src/skills.ts",
    find: "    if (this.granted.length === 0) return;\n    const granted = new Set(this.granted);\n    this.options.settings.rules = this.options.settings.rules.filter((rule) => !granted.has(rule));\n    this.granted = [];\n",
    replace: "    // take the rules in this.granted out of this.options.settings.rules, then forget them\n",
    test: "not after its run|until the run ends|takes the skill's rules out",
    expect: "fail",
  },
  {
    // every skill offered to the model, disable-model-invocation or not
    id: 2,
    file: "src/skills.ts",
    find: "return this.options.skills.filter((skill) => !skill.disableModelInvocation);",
    replace: "return [...this.options.skills];",
    test: "keeps a disable-model-invocation skill out of the model's list",
    expect: "fail",
  },
  {
    // a read in a skill's folder run in the project, as every other read
    id: 3,
    file: "src/skills.ts",
    find: "              const read = readInSkill(this.options.skills, input, context.cwd);\n              return read ? tool.run(read.input, { ...context, cwd: read.cwd }) : tool.run(input, context);\n",
    replace: "              return tool.run(input, context);\n",
    test: "reads a file the body names from the skill's folder",
    expect: "fail",
  },
];
