import { describe, expect, it } from "vitest";
import { cleanUpAfter } from "../src/clean-up-after.ts";

const ran: string[] = [];

describe("cleanUpAfter", () => {
  cleanUpAfter(() => ran.push("suite"));

  it("runs a cleanup registered in a test when that test ends", () => {
    cleanUpAfter(() => ran.push("first test"));
    expect(ran).toEqual([]);
  });

  it("has run the last test's, and not yet the suite's", () => {
    expect(ran).toEqual(["first test"]);
  });
});

describe("after a suite", () => {
  it("has run the cleanup registered in its body", () => {
    expect(ran).toEqual(["first test", "suite"]);
  });
});
