/**
 * The demos' brain: a few rules that make the scripted model useful without a key.
 *
 * For each try-it prompt it knows, it asks for real tool calls, reads the real results in the
 * next request, and answers from them. It keeps no state of its own: every decision is read off
 * the conversation it is sent, as a real model's is. For any other prompt it says what it is,
 * which prompts it knows, and how to use a real model.
 *
 * Each chapter's rules live in brain/ (s01-rules.ts, s02-rules.ts, s05-rules.ts, s06-rules.ts,
 * s07-rules.ts, s11-rules.ts, s12-rules.ts, s13-rules.ts, s14-rules.ts), s08's in compaction/context-rules.ts; this file tries them
 * in order.
 */
import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";
import { type DemoRule, readConversation } from "./brain/read-conversation.ts";
import { S01_RULES } from "./brain/s01-rules.ts";
import { S02_RULES } from "./brain/s02-rules.ts";
import { S05_RULES } from "./brain/s05-rules.ts";
import { S06_RULES } from "./brain/s06-rules.ts";
import { S07_RULES } from "./brain/s07-rules.ts";
import { S11_RULES } from "./brain/s11-rules.ts";
import { S12_RULES } from "./brain/s12-rules.ts";
import { S13_RULES } from "./brain/s13-rules.ts";
import { S14_RULES } from "./brain/s14-rules.ts";
import { CONTEXT_RULES } from "./compaction/context-rules.ts";
import { type ScriptedReply, textReply } from "./script.ts";
import type { ScriptedApi } from "./scripted-model.ts";

/** The brain: the first rule whose prompt matches and whose tools are offered answers. */
export function demoBrain(request: MessageCreateParams, wire?: { api: ScriptedApi }): ScriptedReply {
  const conversation = readConversation(request);
  const usable = DEMO_RULES.filter((rule) => rule.needs.every((t) => conversation.tools.has(t)));
  const rule = usable.find((r) => r.matches(conversation.prompt));
  if (rule) return rule.next(conversation);
  const examples = usable
    .filter((r) => !r.unlisted)
    .map((r) => `  - ${r.example}`)
    .join("\n");
  return textReply(
    "I am the offline scripted model: a stand-in for Claude that runs with no key and no network, " +
      "so I only know a few prompts. Try one of these:\n" +
      `${examples}\n` +
      (wire === undefined || wire.api === "messages"
        ? "To use a real model, set ANTHROPIC_API_KEY (in your shell or in .env at the repository root), " +
          "or point ANTHROPIC_BASE_URL at an Anthropic-compatible endpoint (with any key it accepts, e.g. " +
          "ANTHROPIC_AUTH_TOKEN=ollama), and run without --offline."
        : "To use a real model, set OPENAI_API_KEY (in your shell or in .env at the repository root), " +
          "and OPENAI_BASE_URL for a server other than OpenAI's (any key it accepts, e.g. " +
          "OPENAI_API_KEY=ollama for Ollama's /v1), and run without --offline."),
  );
}

/** Every rule, in the order they are tried: each chapter's, in the order of the chapters. Chapters' tools decide which are offered. */
export const DEMO_RULES: DemoRule[] = [
  ...S01_RULES,
  ...S02_RULES,
  ...S05_RULES,
  ...S06_RULES,
  ...S07_RULES,
  ...CONTEXT_RULES,
  ...S11_RULES,
  ...S12_RULES,
  ...S13_RULES,
  ...S14_RULES,
];
