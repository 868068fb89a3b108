import { BadRequestError, InternalServerError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { promptTooLong } from "../src/prompt-too-long.ts";

/** The error the SDK throws for a 400 with this body (the API's own words, from a real report). */
const refusal = (message: string) =>
  new BadRequestError(
    400,
    { type: "error", error: { type: "invalid_request_error", message } },
    undefined,
    new Headers(),
  );

describe("promptTooLong", () => {
  it("reads the two numbers of the API's refusal", () => {
    expect(promptTooLong(refusal("prompt is too long: 200251 tokens > 200000 maximum"))).toEqual({
      tokens: 200251,
      maximum: 200000,
    });
  });

  it("is null for any other 400, another status, or anything else", () => {
    expect(promptTooLong(refusal("messages.0: all messages must have non-empty content"))).toBeNull();
    const other = new InternalServerError(
      500,
      { type: "error", error: { message: "prompt is too long: 1 tokens > 0 maximum" } },
      undefined,
      new Headers(),
    );
    expect(promptTooLong(other)).toBeNull();
    expect(promptTooLong(new Error("prompt is too long: 2 tokens > 1 maximum"))).toBeNull();
  });
});
