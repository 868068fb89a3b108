import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ScriptedModel, textReply } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { describe, expect, it } from "vitest";
import { anthropicAdapter } from "../src/anthropic-adapter.ts";
import { withAnthropicIds } from "../src/with-anthropic-ids.ts";

/** A history whose calls carry ids another provider gave them. */
function history(...ids: string[]): MessageParam[] {
  return [
    { role: "user", content: "go" },
    {
      role: "assistant",
      content: ids.map((id) => ({ type: "tool_use" as const, id, name: "bash", input: { command: "true" } })),
    },
    {
      role: "user",
      content: ids.map((id) => ({ type: "tool_result" as const, tool_use_id: id, content: "[exit code 0]" })),
    },
  ];
}

const idsOf = (messages: MessageParam[]) =>
  messages.flatMap((m) =>
    typeof m.content === "string"
      ? []
      : m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : b.type === "tool_result" ? [b.tool_use_id] : [])),
  );

describe("withAnthropicIds", () => {
  it("rewrites ids the Messages API would refuse, the same way in a call and its result, each unique", () => {
    const messages = history("functions.bash:0", "functions.bash.0", "toolu_ok");
    const sent = withAnthropicIds(messages);
    expect(idsOf(sent)).toEqual([
      "functions_bash_0",
      "functions_bash_0_2",
      "toolu_ok",
      "functions_bash_0",
      "functions_bash_0_2",
      "toolu_ok",
    ]);
    expect(historyProblems(sent)).toEqual([]);
    expect(idsOf(messages)[0]).toBe("functions.bash:0"); // the history kept is unchanged
  });

  it("leaves a history whose ids are all fine as it is", () => {
    const messages = history("call_1", "toolu_2");
    expect(withAnthropicIds(messages)).toEqual(messages);
  });

  it("is what the anthropic adapter sends: a history from a provider with other ids is accepted", async () => {
    const model = new ScriptedModel({ script: [textReply("done")] });
    const adapter = anthropicAdapter(model.client({ maxRetries: 0 }));
    const messages = [
      ...history("functions.bash:0"),
      { role: "assistant" as const, content: "ok" },
      { role: "user" as const, content: "next" },
    ];
    await adapter.streamTurn({ model: "m", max_tokens: 10, messages }, new AbortController().signal);
    expect(idsOf(model.requests[0].body.messages)).toEqual(["functions_bash_0", "functions_bash_0"]);
  });
});
