/**
 * The conversations every benchmark runs, as a brain for the scripted model.
 *
 * Like the demo brain it keeps no state: each reply is read off the request, so every loop that
 * sends the same history gets the same replies, whoever sent it. Four prompts are known:
 *
 *   toolTurnsPrompt(n)      n turns of one bash call each (`echo 1` ... `echo n`), then a text
 *                           answer that quotes the last tool output
 *   readTurnsPrompt(n)      n turns of a line of text and one read_file call each (`file-1.txt`
 *                           ... `file-n.txt`, which `writeReadTurnsFiles` puts in the loop's
 *                           cwd), then a text answer
 *   streamPrompt(c, d)      one text answer of c characters, streamed with d ms between events
 *   fanOutPrompt(k, tool)   one turn of k calls to `tool`, then a text answer counting the results
 *
 * A prompt is found on a line of its own anywhere in the first user message, so a harness that
 * puts its own text around the user's (Claude Code's reminders) gets the same conversation; and
 * the bash call takes the name of the request's bash tool (`bash`, or Claude Code's `Bash`).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageCreateParams, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { reply, type ScriptStep, text, textReply, toolUse } from "@harness/scripted-model";

/** The prompt of a conversation of `turns` bash calls. */
export function toolTurnsPrompt(turns: number): string {
  return `bench: ${turns} tool turns`;
}

/** The prompt of a conversation of `turns` read_file calls. */
export function readTurnsPrompt(turns: number): string {
  return `bench: ${turns} read_file turns`;
}

/** The answer a read-turns conversation ends with. */
export function readTurnsAnswer(turns: number): string {
  return `I read ${turns} files.`;
}

/** Write the small files a read-turns conversation of `turns` reads into `dir`. */
export function writeReadTurnsFiles(dir: string, turns: number): void {
  for (let k = 1; k <= turns; k++) writeFileSync(join(dir, `file-${k}.txt`), `line one of ${k}\nline two\n`);
}

/** The prompt of one streamed text answer of `chars` characters, `eventDelayMs` between events. */
export function streamPrompt(chars: number, eventDelayMs: number): string {
  return `bench: stream ${chars} characters every ${eventDelayMs} ms`;
}

/** The prompt of one turn of `calls` calls to `tool` (with an empty input), then an answer. */
export function fanOutPrompt(calls: number, tool: string): string {
  return `bench: ${calls} calls to ${tool}`;
}

/** The answer a tool-turns conversation ends with, given the last tool output it quotes. */
export function toolTurnsAnswer(turns: number, lastOutput: string): string {
  return `Done after ${turns} tool calls. The last one printed: ${JSON.stringify(lastOutput)}`;
}

/** The scripted model's brain for the benchmark prompts. */
export function benchBrain(request: MessageCreateParams): ScriptStep {
  const prompt = firstPrompt(request.messages);
  const answered = request.messages.filter((m) => m.role === "assistant").length;

  let m = /^bench: (\d+) tool turns$/m.exec(prompt);
  if (m) {
    const turns = Number(m[1]);
    const names = (request.tools ?? []).map((tool) => ("name" in tool ? tool.name : ""));
    const bash = names.find((name) => /^bash$/i.test(name)) ?? "bash";
    if (answered < turns) return reply([toolUse(bash, { command: `echo ${answered + 1}` })]);
    return textReply(toolTurnsAnswer(turns, lastToolOutput(request.messages)));
  }
  m = /^bench: (\d+) read_file turns$/m.exec(prompt);
  if (m) {
    const turns = Number(m[1]);
    if (answered < turns) {
      const path = `file-${answered + 1}.txt`;
      return reply([text(`Reading ${path}.`), toolUse("read_file", { path })]);
    }
    return textReply(readTurnsAnswer(turns));
  }
  m = /^bench: stream (\d+) characters every (\d+) ms$/m.exec(prompt);
  if (m) {
    const chars = Number(m[1]);
    const answer = "The quick brown fox jumps over the lazy dog. ".repeat(Math.ceil(chars / 45)).slice(0, chars);
    return textReply(answer, { eventDelayMs: Number(m[2]) });
  }
  m = /^bench: (\d+) calls to (\w+)$/m.exec(prompt);
  if (m) {
    const calls = Number(m[1]);
    if (answered === 0) return reply(Array.from({ length: calls }, () => toolUse(m![2], {})));
    return textReply(`${calls} calls answered.`);
  }
  return textReply(`I am the benchmark brain and do not know the prompt ${JSON.stringify(prompt)}.`);
}

/** The text of the first user message, its text blocks one per line. */
export function firstPrompt(messages: MessageParam[]): string {
  const content = messages[0]?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("\n");
}

/** The text of the last tool_result, whether its content is a string or text blocks. */
function lastToolOutput(messages: MessageParam[]): string {
  for (const message of [...messages].reverse()) {
    if (typeof message.content === "string") continue;
    for (const block of [...message.content].reverse()) {
      if (block.type !== "tool_result") continue;
      if (typeof block.content === "string") return block.content;
      return (block.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
    }
  }
  return "";
}
