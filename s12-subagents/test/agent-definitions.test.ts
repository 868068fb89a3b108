import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trustedKinds } from "@harness/s05-permissions";
import { cleanUpAfter } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import {
  definitionsInForce,
  GENERAL_PURPOSE,
  loadAgentDefinitions,
  readDefinition,
  shippedAgents,
} from "../src/agents/agent-definitions.ts";

const TOOLS = ["bash", "read_file", "write_file", "edit_file", "glob", "grep", "task"];

/** A project and a home with these agent files (`name` → text), removed after the test. */
function places(project: Record<string, string>, user: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), "s12-agents-"));
  cleanUpAfter(() => rmSync(root, { recursive: true, force: true }));
  const cwd = join(root, "project");
  const home = join(root, "home");
  for (const [dir, files] of [
    [join(cwd, ".harness", "agents"), project],
    [join(home, "agents"), user],
  ] as const) {
    mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  }
  return { cwd, home };
}

const file = (fields: string, body = "You do the thing.") => `---\n${fields}\n---\n${body}\n`;

describe("readDefinition", () => {
  it("reads Claude Code's agent file: name, description, tools in either naming, model, the body as the prompt", () => {
    const read = readDefinition(
      file("name: explorer\ndescription: Finds\n  things.\ntools: Read, grep, Bash\nmodel: claude-haiku-4-5"),
      TOOLS,
    );
    expect(read).toEqual({
      definition: {
        name: "explorer",
        description: "Finds things.",
        tools: ["read_file", "grep", "bash"],
        model: "claude-haiku-4-5",
        prompt: "You do the thing.",
      },
      notes: [],
    });
  });

  it("takes tools as a YAML list, leaves out one a child cannot have with a note, and model inherit as the parent's", () => {
    const read = readDefinition(file("name: a\ndescription: d\ntools: [Glob, WebFetch]\nmodel: inherit"), TOOLS);
    expect(read).toEqual({
      definition: { name: "a", description: "d", tools: ["glob"], prompt: "You do the thing." },
      notes: ["tools a subagent cannot have here, left out: WebFetch"],
    });
  });

  it.each([
    ["no frontmatter", "You do things.\n", /^no frontmatter/],
    ["YAML that does not parse", file("name: [a\ndescription: d"), /^the frontmatter is not YAML/],
    ["no name", file("description: d"), /^name: missing/],
    ["a name with capitals", file("name: Big\ndescription: d"), /^name: lower-case/],
    ["no description", file("name: a"), /^description: missing/],
    ["tools of the wrong type", file("name: a\ndescription: d\ntools: 3"), /^tools: a list/],
    ["an empty body", file("name: a\ndescription: d", ""), /^the body .* is empty/],
  ])("refuses %s in a few words", (_, text, why) => {
    expect(readDefinition(text, TOOLS)).toMatch(why);
  });
});

describe("loadAgentDefinitions", () => {
  it("reads the user's and the project's, each broken file one line, the project's over the user's of the same name", () => {
    const { cwd, home } = places(
      { "x.md": file("name: x\ndescription: the project's"), "bad.md": "nothing\n" },
      { "x.md": file("name: x\ndescription: the user's"), "y.md": file("name: y\ndescription: the user's y") },
    );
    const loaded = loadAgentDefinitions(cwd, home, TOOLS);
    expect(loaded.problems).toEqual([
      "agents: .harness/agents/bad.md: no frontmatter (a --- line, the fields, a --- line, then the prompt); skipped",
    ]);
    const kinds = definitionsInForce(loaded, true);
    expect(kinds.map((d) => [d.name, d.description])).toEqual([
      ["general-purpose", GENERAL_PURPOSE.description],
      ["x", "the project's"],
      ["y", "the user's y"],
    ]);
    expect(definitionsInForce(loaded, false).map((d) => [d.name, d.source])).toEqual([
      ["general-purpose", "built-in"],
      ["x", "user"],
      ["y", "user"],
    ]);
  });

  it("offers the project's definitions to s05's trust rule as one kind, whose hash changes with any edit", () => {
    const { cwd, home } = places({ "x.md": file("name: x\ndescription: d\ntools: Read") });
    const shipped = shippedAgents(loadAgentDefinitions(cwd, home, TOOLS));
    expect(shipped).toMatchObject({
      kind: "agents",
      lines: ["agent x: tools read_file   (.harness/agents/x.md)"],
      summary: "1 agent definition in .harness/agents",
    });
    expect(trustedKinds(cwd, [shipped], { home })).toEqual([]);
  });

  it("offers nothing to trust when the project has no definitions", () => {
    const { cwd, home } = places({}, { "y.md": file("name: y\ndescription: d") });
    expect(shippedAgents(loadAgentDefinitions(cwd, home, TOOLS)).lines).toEqual([]);
  });
});
