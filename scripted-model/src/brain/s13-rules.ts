/**
 * s13's demo rules: a skill used by the model, and one the user invoked. Asked to triage the TODO
 * comments, the scripted model looks in the skill tool's description for a skill whose description
 * speaks of TODOs, loads it, then does what the loaded body says: greps with the pattern the body
 * gives and reads the file the body names from the skill's folder, and ranks each comment by that
 * file's lines. Sent a skill the user invoked (`/NAME`, its body in the prompt) whose body gives a
 * `git log` command, it runs that command and answers with the body's heading and the log's
 * subjects. Every step is read off the conversation (the list, the body, the results), as the other
 * rules' are.
 */
import { text, textReply, toolUse, reply as withBlocks } from "../script.ts";
import type { DemoRule, Exchange } from "./read-conversation.ts";
import { fileText, refusedWhy, splitBashOutput } from "./read-result.ts";

/** The line a loaded skill's text gives its folder on. */
const BASE = /^Skill "([^"]+)"\. Base directory for this skill: (.+)$/m;

/** A skill in the skill tool's list (`- name: description`) whose description speaks of `topic`. */
function offeredSkill(description: string | undefined, topic: RegExp): string | undefined {
  for (const [, name, about] of (description ?? "").matchAll(/^- ([a-z0-9-]+): (.*)$/gm)) {
    if (topic.test(about)) return name;
  }
  return undefined;
}

/** The comments a grep found, each with its place, and the priority the rules give it (the first that matches; low else). */
function ranked(grep: Exchange, priorities: string): Array<{ where: string; comment: string; priority: string }> {
  const rules = [...priorities.matchAll(/^- `([^`]+)`: (\w+)/gm)].map(([, word, priority]) => ({ word, priority }));
  return [...grep.output.matchAll(/^([^\s:]+:\d+): (.*)$/gm)].map(([, where, comment]) => ({
    where,
    comment: comment.trim(),
    priority: rules.find((rule) => comment.toLowerCase().includes(rule.word.toLowerCase()))?.priority ?? "low",
  }));
}

/** "Triage the TODO comments": load the skill the list offers for it, then follow its body. */
const triageWithSkill: DemoRule = {
  example: "Triage the TODO comments in this project",
  needs: ["skill", "grep", "read_file"],
  matches: (prompt) => /\b(?:triage|prioriti[sz]e)\b.*\bTODO/i.test(prompt),
  next({ exchanges, descriptions }) {
    const loaded = exchanges.find((e) => e.name === "skill");
    if (!loaded) {
      const name = offeredSkill(descriptions.get("skill"), /\bTODO/);
      if (!name)
        return textReply("No skill offered here is for TODO comments, so I have no team rules to rank them by.");
      return withBlocks([
        text(`The skill ${name} is for this; I'll load its instructions first.`),
        toolUse("skill", { skill: name }),
      ]);
    }
    if (loaded.isError) return textReply(`The skill did not load: ${loaded.output}`);
    const [, name, dir] = BASE.exec(loaded.output) ?? [];
    const pattern = /`([^`]*TODO[^`]*)`/.exec(loaded.output)?.[1] ?? "TODO";
    const named = /\b([\w-]+\.md)\b/.exec(loaded.output.replace(BASE, ""))?.[1];
    const grep = exchanges.find((e) => e.name === "grep");
    const read = exchanges.find((e) => e.name === "read_file");
    if (!grep) {
      return withBlocks([
        text(`Following ${name}: the markers, and ${named ?? "its rules"} from its folder.`),
        toolUse("grep", { pattern }),
        ...(named && dir ? [toolUse("read_file", { path: `${dir}/${named}` })] : []),
      ]);
    }
    if (grep.isError || grep.output.startsWith("No matches"))
      return textReply(`There is nothing to triage: ${grep.output}`);
    if (read?.isError) return textReply(`I could not read ${named} from the skill's folder: ${read.output}`);
    const comments = ranked(grep, read ? fileText(read) : "");
    const order = ["high", "medium", "low"];
    const groups = order
      .map((priority) => ({ priority, items: comments.filter((c) => c.priority === priority) }))
      .filter((group) => group.items.length > 0)
      .map((group) => `${group.priority}:\n${group.items.map((c) => `- ${c.where}: ${c.comment}`).join("\n")}`);
    return textReply(`By ${name}'s ${named ?? "rules"}, ${comments.length} comments:\n${groups.join("\n")}`);
  },
};

/** A skill the user invoked whose body gives a `git log` command: run it, answer under the body's heading. */
const followReleaseSkill: DemoRule = {
  example: "/release-notes 0.2 (a skill the user invokes)",
  needs: ["bash"],
  unlisted: true,
  matches: (prompt) => BASE.test(prompt) && /`git log[^`]*`/.test(prompt),
  next({ prompt, exchanges }) {
    const command = /`(git log[^`]*)`/.exec(prompt)?.[1] ?? "git log --oneline";
    const [, name] = BASE.exec(prompt) ?? [];
    const log = exchanges.find((e) => e.name === "bash");
    if (!log) return withBlocks([text(`Following the skill ${name}: the log first.`), toolUse("bash", { command })]);
    const why = refusedWhy(log);
    if (why !== undefined)
      return textReply(`I could not run \`${command}\`, so there are no notes: ${why.split("\n")[0]}`);
    const { output, exitCode } = splitBashOutput(log);
    if (exitCode !== 0) return textReply(`\`${command}\` failed (exit code ${exitCode}):\n${output}`);
    const heading = /^.*\bheading "([^"]+)"/m.exec(prompt)?.[1] ?? "Release notes";
    const subjects = output.split("\n").flatMap((line) => /^[0-9a-f]{7,} (.+)$/.exec(line)?.slice(1) ?? []);
    return textReply(`${heading}\n\n${subjects.map((subject) => `- ${subject}`).join("\n")}`);
  },
};

/** s13's rules, in the order they are tried. */
export const S13_RULES: DemoRule[] = [triageWithSkill, followReleaseSkill];
