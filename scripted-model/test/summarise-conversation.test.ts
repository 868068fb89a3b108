import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import {
  isSummary,
  SUMMARY_LIMITS,
  SUMMARY_SECTIONS,
  summariseConversation,
} from "../src/compaction/summarise-conversation.ts";

/** One prompt, one bash call and its result, one answer. */
function exchange(prompt: string, command: string, output: string, id: string): MessageParam[] {
  return [
    { role: "user", content: prompt },
    {
      role: "assistant",
      content: [
        { type: "text", text: `I'll run ${command}.` },
        { type: "tool_use", id, name: "bash", input: { command } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] },
    { role: "assistant", content: [{ type: "text", text: `It printed ${output.split("\n")[0]}.` }] },
  ];
}

describe("summariseConversation", () => {
  it("writes the four sections from the history: requests, notes, what was said, files and commands", () => {
    const history: MessageParam[] = [
      { role: "user", content: "Note: the release codename is BLUE-HERON." },
      { role: "assistant", content: [{ type: "text", text: "Noted." }] },
      ...exchange("Run `seq 1 3`", "seq 1 3", "1\n2\n3\n[exit code 0]", "t1"),
      { role: "user", content: "Read notes.md" },
      { role: "assistant", content: [{ type: "tool_use", id: "t2", name: "read_file", input: { path: "notes.md" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: "1\thi\n[lines 1-1 of 1]" }] },
    ];
    const summary = summariseConversation(history);
    expect(summary.match(/^## .+$/gm)).toEqual(SUMMARY_SECTIONS.map((s) => `## ${s}`));
    expect(summary).toContain("- noted: the release codename is BLUE-HERON.");
    expect(summary).toContain('- asked: "Run `seq 1 3`"');
    expect(summary).toContain("- ran `seq 1 3`: exit 0, 3 lines, first: 1");
    expect(summary).toContain("- read notes.md (1 line)");
    expect(summary).toContain("- said: I'll run seq 1 3.");
    expect(summary).toContain(
      'the latest request, in progress; the last step: read notes.md (1 line): "Read notes.md"',
    );
    expect(isSummary(summary)).toBe(true);
  });

  it("carries an earlier summary's items forward, so a note survives a summary of a summary", () => {
    const first = summariseConversation([
      { role: "user", content: "Note: the port is 8123." },
      { role: "assistant", content: [{ type: "text", text: "Noted." }] },
    ]);
    const second = summariseConversation([
      { role: "user", content: [{ type: "text", text: `Summary of the conversation so far:\n\n${first}` }] },
      { role: "assistant", content: [{ type: "text", text: "Understood." }] },
      ...exchange("Run `echo hi`", "echo hi", "hi\n[exit code 0]", "t9"),
    ]);
    expect(second).toContain("- noted: the port is 8123.");
    expect(second).toContain("- ran `echo hi`: exit 0, 1 line, first: hi");
    expect(second).toContain('the latest request, answered: "Run `echo hi`"');
  });

  it("reads a compaction block's summary like its own", () => {
    const earlier = summariseConversation([{ role: "user", content: "Note: the owner is Ada." }]);
    const summary = summariseConversation([
      { role: "user", content: "Go on" },
      { role: "assistant", content: [{ type: "compaction", content: earlier } as never] },
    ]);
    expect(summary).toContain("- noted: the owner is Ada.");
  });

  it("keeps the first request and the latest ones, and only the first line of a command's output", () => {
    const history = Array.from({ length: 20 }, (_, i) =>
      exchange(`Run \`step ${i}\``, `step ${i}`, `first ${i}\nthe buried value is ${i}\n[exit code 0]`, `t${i}`),
    ).flat();
    const summary = summariseConversation(history);
    const asked = summary.match(/^- asked: .+$/gm) ?? [];
    expect(asked).toHaveLength(SUMMARY_LIMITS.requests);
    expect(asked[0]).toContain("step 0");
    expect(asked.at(-1)).toContain("step 19");
    expect(summary).not.toContain("step 5`");
    expect(summary).not.toContain("the buried value");
    expect(summary.match(/^- ran /gm)).toHaveLength(SUMMARY_LIMITS.files);
  });
});
