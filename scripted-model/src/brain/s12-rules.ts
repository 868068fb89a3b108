/**
 * s12's demo rule: a search handed to a subagent. Asked to have a subagent find the TODO
 * comments, the scripted model calls `task` with a prompt that s02's rule answers (the child is
 * sent that prompt on a fresh history, so the brain reads it as a conversation of its own: it
 * greps and reports), then answers from the child's report alone. Every step is read off the
 * conversation, as the other rules' are.
 */
import { text, textReply, toolUse, reply as withBlocks } from "../script.ts";
import type { DemoRule } from "./read-conversation.ts";

/** The task the parent hands over: a prompt s02's rule answers with a grep. */
export const TODO_SEARCH_TASK = {
  description: "Find the TODO comments",
  prompt: "Find the TODO comments in this project. Report each one with its file and line.",
};

/** "Use a subagent to search this project for TODO comments": delegate, then answer from the report. */
const delegateSearch: DemoRule = {
  example: "Use a subagent to search this project for TODO comments",
  needs: ["task"],
  matches: (prompt) => /\bsubagent\b.*\bTODO\b/i.test(prompt),
  next({ exchanges }) {
    const task = exchanges.find((e) => e.name === "task");
    if (!task) {
      return withBlocks([
        text("I'll hand the search to a subagent: only its report comes back into this conversation."),
        toolUse("task", TODO_SEARCH_TASK),
      ]);
    }
    if (task.isError)
      return textReply(`The subagent did not finish: ${task.output.split("\n")[0].replace(/ Its last text:$/, "")}`);
    const hits = [...task.output.matchAll(/^- ([^\s:]+):(\d+): /gm)].map(([, file, line]) => `${file} (line ${line})`);
    if (hits.length === 0) return textReply(`From the subagent's report: ${task.output.split("\n")[0]}`);
    const list = hits.length === 1 ? hits[0] : `${hits.slice(0, -1).join(", ")} and ${hits.at(-1)}`;
    return textReply(
      `From the subagent's report: ${hits.length} TODO comment${hits.length === 1 ? "" : "s"}, in ${list}.`,
    );
  },
};

/** s12's rules, in the order they are tried. */
export const S12_RULES: DemoRule[] = [delegateSearch];
