import { BadRequestError, InternalServerError } from "openai";
import { describe, expect, it } from "vitest";
import { openAiPromptTooLong } from "../src/openai/openai-prompt-too-long.ts";

/** The error the openai SDK throws for a 400 with this `error` body. */
const refusal = (error: Record<string, unknown>) => new BadRequestError(400, error, undefined, new Headers());

describe("openAiPromptTooLong", () => {
  it("reads OpenAI's Chat Completions refusal: both numbers", () => {
    const error = refusal({
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    });
    expect(openAiPromptTooLong(error)).toEqual({ tokens: 130512, maximum: 128000 });
  });

  it("reads the Responses API's refusal, which names no number", () => {
    const error = refusal({
      message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
      type: "invalid_request_error",
      param: "input",
      code: "context_length_exceeded",
    });
    expect(openAiPromptTooLong(error)).toEqual({ tokens: 0 });
  });

  it("reads vLLM's refusal, the same sentence without the code", () => {
    const error = refusal({
      message:
        "This model's maximum context length is 32768 tokens. However, your request has 33012 input tokens. Please reduce the length of the input messages. None",
      type: "BadRequestError",
      param: null,
      code: 400,
    });
    expect(openAiPromptTooLong(error)).toEqual({ tokens: 33012, maximum: 32768 });
  });

  it("reads llama-server's refusal from its own fields", () => {
    const error = refusal({
      code: 400,
      message: "request (33012 tokens) exceeds the available context size (32768 tokens), try increasing it",
      type: "exceed_context_size_error",
      n_prompt_tokens: 33012,
      n_ctx: 32768,
    });
    expect(openAiPromptTooLong(error)).toEqual({ tokens: 33012, maximum: 32768 });
  });

  it("is null for any other 400, another status, or anything else", () => {
    expect(
      openAiPromptTooLong(refusal({ message: "Invalid 'messages[0].content'", code: "invalid_value" })),
    ).toBeNull();
    const server = new InternalServerError(
      500,
      { message: "maximum context length is 10 tokens" },
      undefined,
      new Headers(),
    );
    expect(openAiPromptTooLong(server)).toBeNull();
    expect(openAiPromptTooLong(new Error("context_length_exceeded"))).toBeNull();
  });
});
