/**
 * The skills in use through a compaction. s08's summary is the model's own words about the past,
 * and the results that loaded the skills are among what it replaces: a skill's instructions may
 * come out as a sentence, or not at all, while the model is still following them. So right after
 * the summary, as s11 does for the todo list, the harness restates the body of each skill loaded
 * this session, word for word, unless the history kept after the summary still holds it.
 *
 * Like s11's `restatePlan`, it is a listener on the window's `context` event that writes into the
 * history: main.ts hands it to the window ahead of the others, so s08's boundary has it.
 */
import type { MessageParam, TextBlockParam } from "@anthropic-ai/sdk/resources/messages";
import type { ContextEvent } from "@harness/s08-compaction";
import type { SkillInUse, Skills } from "./skills.ts";

/** The listener: after each compaction, each skill in use restated after the summary. */
export function restateSkills(skills: Skills) {
  return (event: { type: string }): void => {
    const heard = event as ContextEvent;
    if (heard.type !== "context" || heard.change.kind !== "compacted") return;
    const [opening, ...rest] = heard.messages as MessageParam[]; // the summary's user message, its first block the summary
    const blocks = typeof opening.content === "string" ? [text(opening.content)] : opening.content;
    const kept = JSON.stringify([blocks.slice(1), rest]); // what follows the summary: the prompts kept, the rest
    const lost = [...skills.inUse.values()].filter((one) => !kept.includes(JSON.stringify(one.loaded).slice(1, -1)));
    if (lost.length === 0) return;
    opening.content = [blocks[0], ...lost.map((one) => text(skillRestatement(one))), ...blocks.slice(1)];
  };
}

/** The restatement's text: a skill's instructions, as they were loaded. */
export function skillRestatement(one: SkillInUse): string {
  return (
    `<system-reminder>\nThe skill "${one.skill.name}" is in use; its instructions, as they were loaded ` +
    `(the summary may not have kept them):\n${one.loaded}\n</system-reminder>`
  );
}

function text(value: string): TextBlockParam {
  return { type: "text", text: value };
}
