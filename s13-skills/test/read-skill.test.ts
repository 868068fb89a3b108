import { describe, expect, it } from "vitest";
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, readSkill } from "../src/skill-files/read-skill.ts";

const file = (fields: string, body = "Do the thing.") => `---\n${fields}\n---\n${body}\n`;

describe("readSkill", () => {
  it("reads the format's fields with a real YAML parser: a folded description, a quoted name, the body", () => {
    const read = readSkill(
      file('name: "pdf-tools"\ndescription: >\n  Fills PDF forms;\n  use it for PDFs.'),
      "pdf-tools",
    );
    expect(read).toEqual({
      name: "pdf-tools",
      description: "Fills PDF forms; use it for PDFs.",
      body: "Do the thing.",
      allowedTools: [],
      disableModelInvocation: false,
    });
  });

  it("reads allowed-tools as one line split at spaces (parentheses kept whole), at commas, or as a list", () => {
    const line = readSkill(file("name: a\ndescription: d\nallowed-tools: Bash(git log:*) Read"), "a");
    const commas = readSkill(file("name: a\ndescription: d\nallowed-tools: Bash(git log:*), Read"), "a");
    const list = readSkill(file("name: a\ndescription: d\nallowed-tools:\n  - Bash(git log:*)\n  - Read"), "a");
    for (const read of [line, commas, list]) expect(read).toMatchObject({ allowedTools: ["Bash(git log:*)", "Read"] });
  });

  it("honours disable-model-invocation, and ignores the fields it does not use (license, metadata, Claude Code's own)", () => {
    const read = readSkill(
      file(
        "name: a\ndescription: d\ndisable-model-invocation: true\nlicense: MIT\nmetadata:\n  version: '1'\nargument-hint: '[v]'",
      ),
      "a",
    );
    expect(read).toMatchObject({ name: "a", disableModelInvocation: true });
  });

  it.each([
    ["no frontmatter", "just text\n", "a", /^no frontmatter/],
    ["YAML that does not parse", file("name: a\ndescription: [unclosed"), "a", /^the frontmatter is not YAML/],
    ["a list for frontmatter", file("- a\n- b"), "a", /^the frontmatter is not a set of fields/],
    ["no name", file("description: d"), "a", /^name: missing$/],
    [
      "capitals in the name",
      file("name: Bad\ndescription: d"),
      "Bad",
      /^name: lowercase letters, digits and hyphens only$/,
    ],
    ["an underscore in the name", file("name: a_b\ndescription: d"), "a_b", /^name: lowercase/],
    ["a leading hyphen", file("name: -a\ndescription: d"), "-a", /^name: a hyphen neither first/],
    ["two hyphens in a row", file("name: a--b\ndescription: d"), "a--b", /^name: a hyphen neither first/],
    ["a name too long", file(`name: ${"a".repeat(MAX_NAME_LENGTH + 1)}\ndescription: d`), "x", /^name: longer than 64/],
    [
      "a name that is not the folder's",
      file("name: other\ndescription: d"),
      "a",
      /^name: "other" is not the folder's name "a"$/,
    ],
    ["no description", file("name: a"), "a", /^description: missing or empty$/],
    ["an empty description", file("name: a\ndescription: '  '"), "a", /^description: missing or empty$/],
    [
      "a description too long",
      file(`name: a\ndescription: ${"d".repeat(MAX_DESCRIPTION_LENGTH + 1)}`),
      "a",
      /^description: longer than 1024/,
    ],
    ["allowed-tools of the wrong type", file("name: a\ndescription: d\nallowed-tools: 3"), "a", /^allowed-tools: /],
    [
      "disable-model-invocation not a boolean",
      file("name: a\ndescription: d\ndisable-model-invocation: yes please"),
      "a",
      /^disable-model-invocation: true or false$/,
    ],
  ])("refuses %s, saying which rule it breaks", (_, text, folder, why) => {
    const read = readSkill(text, folder);
    expect(typeof read).toBe("string");
    expect(read).toMatch(why);
  });

  it("takes a name of exactly 64 characters and a description of exactly 1,024", () => {
    const name = "a".repeat(MAX_NAME_LENGTH);
    const read = readSkill(file(`name: ${name}\ndescription: ${"d".repeat(MAX_DESCRIPTION_LENGTH)}`), name);
    expect(typeof read).toBe("object");
  });
});
