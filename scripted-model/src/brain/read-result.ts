/**
 * Reading a tool's result the way the demo rules answer from it: a bash result's output and exit
 * code, a read_file result's text, and why the harness refused a call it did not run.
 */
import type { Exchange } from "./read-conversation.ts";

/** A bash result split into its output and exit code. */
export function splitBashOutput(exchange: Exchange): { output: string; exitCode: number | null } {
  const match = /\n?\[exit code (\d+)\]$/.exec(exchange.output);
  const body = match ? exchange.output.slice(0, match.index) : exchange.output.replace(/\n?\[[^\]]*\]$/, "");
  return { output: body === "(no output)" ? "" : body, exitCode: match ? Number(match[1]) : null };
}

/** The text of a read_file result, without its line numbers and window note. */
export function fileText(exchange: Exchange): string {
  return exchange.output
    .split("\n")
    .filter((line) => !/^\[lines \d+-\d+ of \d+/.test(line))
    .map((line) => line.replace(/^\s*\d+\t/, ""))
    .join("\n");
}

/** The text of a bash result the harness gave instead of running it (`Error [code]: why`), else undefined. */
export function refusedWhy(exchange: Exchange): string | undefined {
  const { output, exitCode } = splitBashOutput(exchange);
  if (!exchange.isError || exitCode !== null) return undefined;
  return /^Error \[\w+\]: ([\s\S]*)$/.exec(output)?.[1];
}
