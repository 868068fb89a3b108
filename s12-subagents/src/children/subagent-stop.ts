/**
 * The hooks at a child's two points that are not a tool call, through the same seam the parent's
 * go through (s06's `LoopHooks`). A child's prompt is the parent model's, not the user's:
 * UserPromptSubmit does not run for it. When its report is about to stand, SubagentStop runs
 * (Claude Code's name and fields), as Stop runs for the parent: a hook that blocks sends the child
 * on once with its reason; blocking again, the report stands. Its matcher is tested against the
 * child's kind (`agent_type`). Calls the child makes go through the parent's gate and its
 * PreToolUse and PostToolUse hooks: that is the call runner, not this.
 */
import {
  continueAfterStop,
  type HookInput,
  type LoopHooks,
  lastPrompt,
  runHooks,
  type StartedHooks,
} from "@harness/s06-hooks";

/** The child a SubagentStop hook is told about. */
export interface StoppingChild {
  /** Its id (`agent_id`) and kind (`agent_type`). */
  id: string;
  type: string;
  /** Its transcript, when it has one (`agent_transcript_path`). */
  transcriptPath?: string;
  /** The text of its answer (`last_assistant_message`). */
  lastText(): string;
}

/** The SubagentStop input, in Claude Code's fields. */
export function subagentStopInput(
  started: Pick<StartedHooks, "session">,
  child: StoppingChild,
  stopHookActive: boolean,
): HookInput {
  return {
    session_id: started.session.sessionId,
    cwd: started.session.cwd,
    hook_event_name: "SubagentStop",
    stop_hook_active: stopHookActive,
    agent_id: child.id,
    agent_type: child.type,
    ...(child.transcriptPath === undefined ? {} : { agent_transcript_path: child.transcriptPath }),
    last_assistant_message: child.lastText(),
  };
}

/**
 * A child's loop hooks: no UserPromptSubmit; SubagentStop when its answer is about to stand, which
 * may send it on once. `notice` tells the user each line (a failure, a block followed or not).
 */
export function subagentStop(started: StartedHooks, child: StoppingChild, notice: (line: string) => void): LoopHooks {
  const hooks = started.hooks.filter((hook) => hook.event === "SubagentStop");
  let stopHookActive = false;
  return {
    async submitPrompt(messages) {
      return { kind: "sent", prompt: lastPrompt(messages), notices: [] };
    },
    async stop(signal) {
      if (hooks.length === 0 || signal.aborted) return undefined;
      const verdict = await runHooks(hooks, subagentStopInput(started, child, stopHookActive), {
        cwd: started.session.cwd,
        signal,
        runProjectHooks: started.runProjectHooks,
      });
      verdict.notices.forEach(notice);
      const next = continueAfterStop(verdict, stopHookActive);
      if (next.notice)
        notice(next.notice.replace("a Stop hook", "a SubagentStop hook").replace("the run", "the subagent"));
      if (next.kind !== "continue" || signal.aborted) return undefined;
      stopHookActive = true;
      return next.message;
    },
  };
}
