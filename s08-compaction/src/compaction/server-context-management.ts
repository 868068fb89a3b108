/**
 * The provider can keep the context small too: the Messages API's context management (a beta)
 * clears old tool uses and compacts the conversation on the server, when a request asks for it.
 * The harness then sends the setting with each request, and sends back each `compaction` block it
 * gets exactly as it came (its `encrypted_content` included); the server reads on from the last one.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ContextLimits } from "../context-budget.ts";
import { KEEP_RECENT_TURNS } from "./clear-old-results.ts";

/** The betas the edits need, as the SDK's `betas` sends them: one `anthropic-beta` header. */
export const SERVER_BETAS = ["context-management-2025-06-27", "compact-2026-01-12"] as const;

/** The request field that asks the server to clear and compact at this chapter's thresholds. */
export function serverContextManagement(limits: ContextLimits) {
  return {
    context_management: {
      edits: [
        {
          type: "clear_tool_uses_20250919",
          trigger: { type: "input_tokens", value: limits.clearAt },
          keep: { type: "tool_uses", value: KEEP_RECENT_TURNS },
        },
        { type: "compact_20260112", trigger: { type: "input_tokens", value: limits.summariseAt } },
      ],
    },
  };
}

/** The client, sending the betas' header with every request (what `betas: SERVER_BETAS` does for one call). */
export function withServerBetas(client: Anthropic): Anthropic {
  return client.withOptions({ defaultHeaders: { "anthropic-beta": SERVER_BETAS.join(",") } });
}
