/**
 * The chapter shape, as a check: every chapter text, in both languages, has the same ten `##`
 * sections in the same order, links the glossary and the troubleshooting page before its first
 * section, draws its mechanism in a mermaid diagram, and ends its exercises section with two to
 * four numbered exercises. `###` subsections are free.
 */
import { EXERCISES_HEADINGS, writtenExercises } from "./exercises.ts";

/** The two languages of a chapter text. */
export type ChapterText = "README.md" | "README.zh.md";

/** The ten sections of every chapter, in order: the English heading and the Chinese one. */
export const CHAPTER_SECTIONS: readonly { "README.md": string; "README.zh.md": string }[] = [
  { "README.md": "## The problem", "README.zh.md": "## 问题" },
  { "README.md": "## The idea", "README.zh.md": "## 核心思想" },
  { "README.md": "## How it works", "README.zh.md": "## 工作原理" },
  { "README.md": "## The whole loop", "README.zh.md": "## 完整的循环" },
  { "README.md": "## What changed", "README.zh.md": "## 相比上一章的变化" },
  { "README.md": "## Common mistakes", "README.zh.md": "## 常见误区" },
  { "README.md": "## What it leaves out", "README.zh.md": "## 本章不做什么" },
  { "README.md": "## Try it", "README.zh.md": "## 动手试试" },
  { "README.md": EXERCISES_HEADINGS["README.md"], "README.zh.md": EXERCISES_HEADINGS["README.zh.md"] },
  { "README.md": "## What comes next", "README.zh.md": "## 下一章" },
];

/** The pages the top matter links, as each language links them. */
export const TOP_MATTER_LINKS: Record<ChapterText, readonly string[]> = {
  "README.md": ["../docs/glossary.md", "../docs/troubleshooting.md"],
  "README.zh.md": ["../docs/glossary.zh.md", "../docs/troubleshooting.zh.md"],
};

/** How many numbered exercises the exercises section holds. */
export const EXERCISE_COUNT = { min: 2, max: 4 } as const;

/** The `##` headings of a markdown text, in order, outside code blocks. */
export function sectionHeadings(markdown: string): string[] {
  const headings: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (opener && (fence === undefined || opener.startsWith(fence))) {
      fence = fence === undefined ? opener : undefined;
      continue;
    }
    if (fence === undefined && /^## /.test(line)) headings.push(line.trimEnd());
  }
  return headings;
}

/** Everything a chapter text does differently from the shape, one line each (none: it keeps it). */
export function chapterShapeProblems(markdown: string, file: ChapterText): string[] {
  const problems: string[] = [];
  const expected = CHAPTER_SECTIONS.map((section) => section[file]);
  const found = sectionHeadings(markdown);

  const missing = expected.filter((heading) => !found.includes(heading));
  if (missing.length > 0) problems.push(`missing sections: ${missing.join(" · ")}`);
  const extra = found.filter((heading) => !expected.includes(heading));
  if (extra.length > 0) {
    problems.push(`sections the shape does not have (make them ### inside one of its sections): ${extra.join(" · ")}`);
  }
  const twice = expected.filter((heading) => found.filter((h) => h === heading).length > 1);
  if (twice.length > 0) problems.push(`sections written twice: ${twice.join(" · ")}`);
  const known = found.filter((heading) => expected.includes(heading));
  const misplaced = outOfOrder(known.map((heading) => expected.indexOf(heading))).map((i) => known[i]);
  if (misplaced.length > 0) {
    problems.push(`sections out of order: ${misplaced.join(" · ")} (the order is: ${expected.join(" · ")})`);
  }

  const top = markdown.split(/^## /m)[0];
  for (const link of TOP_MATTER_LINKS[file]) {
    if (!top.includes(`](${link})`)) problems.push(`the top matter (before the first ##) does not link ${link}`);
  }

  if (!/^\s*(`{3,}|~{3,})mermaid\s*$/m.test(markdown)) problems.push("no ```mermaid diagram");

  const exercises = writtenExercises(markdown, EXERCISES_HEADINGS[file]);
  if (exercises !== undefined) {
    const numbers = exercises.map((exercise) => exercise.number);
    const counted = numbers.every((n, i) => n === i + 1);
    if (numbers.length < EXERCISE_COUNT.min || numbers.length > EXERCISE_COUNT.max || !counted) {
      problems.push(
        `${EXERCISES_HEADINGS[file]} holds ${numbers.length} numbered exercises (${numbers.join(", ") || "none"}); ` +
          `it must hold ${EXERCISE_COUNT.min} to ${EXERCISE_COUNT.max}, numbered 1, 2, ...`,
      );
    }
  }
  return problems;
}

/**
 * The positions of `order` that break its ascending order: those outside one longest ascending
 * run through it, so moving just them would put the rest in order.
 */
export function outOfOrder(order: readonly number[]): number[] {
  // longest strictly increasing subsequence, O(n²): a text has ten sections
  const length = order.map(() => 1);
  const previous = order.map(() => -1);
  for (let i = 0; i < order.length; i++) {
    for (let j = 0; j < i; j++) {
      if (order[j] < order[i] && length[j] + 1 > length[i]) {
        length[i] = length[j] + 1;
        previous[i] = j;
      }
    }
  }
  const kept = new Set<number>();
  let at = length.indexOf(Math.max(0, ...length));
  while (at !== -1) {
    kept.add(at);
    at = previous[at];
  }
  return order.map((_, i) => i).filter((i) => !kept.has(i));
}
