/**
 * s07's demo rule, one that reads the conversation before the latest prompt: asked what it said last, the
 * scripted model quotes its last answer in the history it was sent, or says there is none. It
 * keeps no memory of its own, as a real model keeps none: a harness that sends the earlier turns
 * gets them back, one that starts every run empty gets "nothing yet".
 */
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { textReply } from "../script.ts";
import type { DemoRule } from "./read-conversation.ts";

/** "What did you just tell me?": the text of the model's last answer before the prompt, quoted. */
export const recallAnswer: DemoRule = {
  example: "What did you just tell me?",
  needs: [],
  matches: (prompt) => /\bwhat did you (?:just )?(?:tell|say to) me\b|\bwhat was your (?:last )?answer\b/i.test(prompt),
  next({ earlier }) {
    const answer = lastAnswer(earlier);
    if (answer === undefined)
      return textReply("Nothing yet: the history I was sent holds no answer of mine before this prompt.");
    return textReply(`Before this prompt, I told you:\n\n${answer}`);
  },
};

/** The text of the last assistant message that has any. */
function lastAnswer(messages: readonly MessageParam[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const { role, content } = messages[i];
    if (role !== "assistant") continue;
    const text =
      typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
    if (text.trim() !== "") return text.trim();
  }
  return undefined;
}

/** s07's rules, in the order they are tried. */
export const S07_RULES: DemoRule[] = [recallAnswer];
