import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { askUser, parseAnswer } from "../src/ask-user.ts";

/** A line reader on a stream the test writes to, and what it printed. */
function reader() {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk) => {
    printed += chunk;
  });
  return { rl: createInterface({ input, output, terminal: false }), input, printed: () => printed };
}

describe("parseAnswer", () => {
  it.each([
    ["y", "yes"],
    ["YES", "yes"],
    ["  n ", "no"],
    ["No", "no"],
    ["a", "always"],
    ["always", "always"],
  ])("reads %j as %s", (typed, answer) => {
    expect(parseAnswer(typed, ["yes", "no", "always"])).toBe(answer);
  });

  it.each(["", "  ", "maybe", "ye", "x"])("reads %j as no answer", (typed) => {
    expect(parseAnswer(typed, ["yes", "no", "always"])).toBeUndefined();
  });

  it("takes only the choices offered", () => {
    expect(parseAnswer("always")).toBeUndefined();
    expect(parseAnswer("a", ["yes", "no"])).toBeUndefined();
  });
});

describe("askUser", () => {
  it("asks with the choices' first letters, and again until one is typed", async () => {
    const { rl, input, printed } = reader();
    const answer = askUser(rl, "Write notes.txt?", ["yes", "no", "always"]);
    input.write("perhaps\n");
    input.write("a\n");
    await expect(answer).resolves.toBe("always");
    expect(printed()).toBe("Write notes.txt? [y/n/a] please answer yes, no, always [y/n/a] ");
    rl.close();
  });

  it("answers no when the input ends", async () => {
    const { rl, input } = reader();
    const answer = askUser(rl, "Write notes.txt?");
    input.end();
    await expect(answer).resolves.toBe("no");
  });

  it("answers no when the signal aborts, and leaves the next line to the reader", async () => {
    const { rl, input } = reader();
    const controller = new AbortController();
    const answer = askUser(rl, "Write notes.txt?", undefined, controller.signal);
    controller.abort();
    await expect(answer).resolves.toBe("no");
    const next = new Promise((resolve) => rl.once("line", resolve));
    input.write("a prompt\n");
    await expect(next).resolves.toBe("a prompt");
    rl.close();
  });

  it("answers no at once on an aborted signal or a closed reader", async () => {
    const { rl } = reader();
    await expect(askUser(rl, "x?", undefined, AbortSignal.abort())).resolves.toBe("no");
    rl.close();
    await expect(askUser(rl, "x?")).resolves.toBe("no");
  });
});
