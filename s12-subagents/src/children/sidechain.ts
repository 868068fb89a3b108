/**
 * What is kept of a child, beside what is kept of its parent. Its transcript (s07) is a sidechain:
 * a file of its own, in a folder named after the parent's transcript, named after the task call it
 * ran for, so the parent's tool_result, whose `tool_use_id` is that call's id, links to it:
 *
 *     sessions/<session id>.jsonl                      the parent's
 *     sessions/<session id>/<task call id>.jsonl       a child's (its header names the parent session and the call)
 *     sessions/<session id>/<task call id>/<id>.jsonl  that child's child
 *
 * Its trace (s04, with `--trace`) lies the same way beside the parent's trace, and s04's export
 * puts its spans under the span of the call. Nothing of a child is written into the parent's files:
 * each child writes its own, so children that run at once never share a file.
 */
import { dirname, join } from "node:path";
import { type OpenTrace, TraceRecorder, TraceWriter } from "@harness/s04-tracing";
import { TRANSCRIPT_VERSION, TranscriptWriter } from "@harness/s07-sessions";
import type { Subagent } from "../subagents.ts";

/** The file of the child that ran for `callId`, beside `parentFile` (a transcript or a trace). */
export function childFile(parentFile: string, callId: string): string {
  return join(parentFile.replace(/\.jsonl$/, ""), `${callId}.jsonl`);
}

/** The file of `agent`, down from the main loop's file `rootFile` through its parents. */
export function agentFile(rootFile: string, agent: Subagent): string {
  return childFile(agent.parent ? agentFile(rootFile, agent.parent) : rootFile, agent.callId);
}

/** What the sidechain's header says besides s07's fields: whose child it is. */
export interface SidechainHeader {
  /** The main loop's session. */
  parentSession: string;
  /** The task call the child ran for. */
  parentToolUseId: string;
  /** The child's kind. */
  agentType: string;
}

/** A writer of `agent`'s transcript, beside the session's (`session`: its writer). */
export function openSidechain(
  session: { path: string; sessionId: string },
  agent: Subagent,
  options: { cwd: string; secrets: readonly string[] },
): TranscriptWriter {
  const header = {
    type: "session" as const,
    version: TRANSCRIPT_VERSION,
    id: agent.id,
    cwd: options.cwd,
    created: new Date().toISOString(),
    parentSession: session.sessionId,
    parentToolUseId: agent.callId,
    agentType: agent.type,
  } satisfies SidechainHeader & Record<string, unknown>;
  return new TranscriptWriter(agentFile(session.path, agent), header, { model: agent.model, secrets: options.secrets });
}

/** A recorder of `agent`'s trace, beside the session's trace; none without one. */
export function openChildTrace(
  trace: OpenTrace | undefined,
  agent: Subagent,
  secrets: readonly string[],
): TraceRecorder | undefined {
  if (!trace) return undefined;
  const file = agentFile(trace.writer.path, agent);
  return new TraceRecorder(new TraceWriter(agent.callId, dirname(file), secrets));
}
