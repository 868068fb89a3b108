/**
 * What a child may spend: tokens, input and output, summed over all its model calls (the input
 * counts whole, cache reads and writes included: it is what the child made the model read). A
 * child with no cap is the one that spent 1.7M tokens on one task.
 *
 * Budgets form a tree. A child's tokens are charged to its budget and to every budget above it, so
 * a child that starts children of its own pays for theirs, and the parent's run counts them all
 * (`countChildren` puts them in the run's result). A child stops when its budget or any budget
 * above it is spent, at the next point where its loop would call the model: after the turn's calls
 * have their results, as the turn budget stops a loop. It is stopped through its signal: the loop
 * needs no seam for it, and returns `aborted` with every call answered.
 */
import type { MessageEvent } from "@harness/s07-sessions";
import {
  type AgentLoopResult,
  addUsage,
  type Emit,
  type LoopEvent,
  stopReasonFor,
  type TokenUsage,
} from "@harness/shared";

/** The tokens a call's usage counts against a budget: every input token and every output token. */
export function tokensOf(usage: TokenUsage): number {
  return (
    usage.inputTokens + (usage.cacheReadInputTokens ?? 0) + (usage.cacheCreationInputTokens ?? 0) + usage.outputTokens
  );
}

const NOTHING: TokenUsage = { inputTokens: 0, outputTokens: 0 };

/** A budget of tokens, charged by its own loop and by every loop below it. */
export class TokenBudget {
  private used: TokenUsage = NOTHING;

  /** `limit`: tokens it may spend (none: it only counts); `above`: the budget it is part of. */
  constructor(
    readonly limit = Number.POSITIVE_INFINITY,
    private readonly above?: TokenBudget,
  ) {}

  /** What it has been charged, summed. */
  get usage(): TokenUsage {
    return this.used;
  }

  /** Tokens charged so far (`tokensOf` its usage). */
  get spent(): number {
    return tokensOf(this.used);
  }

  /** Tokens left before it, or a budget above it, is spent. */
  get left(): number {
    return Math.min(this.limit - this.spent, this.above?.left ?? Number.POSITIVE_INFINITY);
  }

  /** Charge one call's usage here and to every budget above. */
  charge(usage: TokenUsage): void {
    this.used = addUsage(this.used, usage);
    this.above?.charge(usage);
  }

  /** Start counting again from nothing (the parent's next run). */
  reset(): void {
    this.used = NOTHING;
  }

  /** A budget of `limit` tokens under this one: what it spends, this one spends too. */
  child(limit: number): TokenBudget {
    return new TokenBudget(limit, this);
  }

  /**
   * The listener for a child's loop: each turn is charged; once nothing is left, `stop` is called
   * where the loop would go on to another model call (the message that answers the turn's calls,
   * or a hook's continuation; a turn with neither goes straight on: pause_turn).
   */
  watch(stop: () => void): Emit<{ type: string }> {
    return (event) => {
      const heard = event as LoopEvent | MessageEvent;
      if (heard.type === "turn") {
        this.charge(heard.turn.usage);
        const goesOn = heard.turn.toolCalls.length === 0 && stopReasonFor(heard.turn) === null;
        if (goesOn && this.left <= 0) stop();
      }
      if (heard.type === "message" && heard.message.role === "user" && this.left <= 0) stop();
    };
  }
}

/**
 * The parent's listener: at the end of each of its runs, its children's tokens (charged to
 * `children`, the budget every child's is under) are added to the run's usage; the count starts
 * from nothing at each run's first model call. Hand it to the loop's `emit` ahead of every other
 * listener, so the summary line, the trace and `--json` all read the run's whole cost.
 * Contract: the result the loop returns is the one told at `end`, so it carries the sum too.
 */
export function countChildren(children: TokenBudget): Emit<{ type: string }> {
  return (event) => {
    const heard = event as LoopEvent;
    if (heard.type === "model_call" && heard.turnNumber === 1) children.reset(); // a run that threw counted nothing
    if (heard.type !== "end") return;
    const result: AgentLoopResult<string> = heard.result;
    result.usage = addUsage(result.usage, children.usage);
  };
}
