/**
 * s05's demo rule: a shell line of several commands, which the permission rules read command by
 * command; the answer says what ran, or what the harness said when it refused the line.
 */
import { bashCall as bash, textReply, reply as withBlocks } from "../script.ts";
import type { DemoRule } from "./read-conversation.ts";
import { splitBashOutput } from "./read-result.ts";

const runLine: DemoRule = {
  example: "Run git status --short && git diff --stat",
  needs: ["bash"],
  matches: (prompt) => LINE.test(prompt.trim()),
  next({ prompt, exchanges }) {
    const line = LINE.exec(prompt.trim())?.[1] ?? "";
    if (exchanges.length === 0) return withBlocks([bash(line)]);
    const { output, exitCode } = splitBashOutput(exchanges[0]);
    // an error with no exit code never ran: the harness answered for it, and says why
    const refused = exchanges[0].isError && exitCode === null ? /^Error \[\w+\]: ([\s\S]*)$/.exec(output) : null;
    if (refused) return textReply(`The harness did not run \`${line}\`. It said: ${refused[1]}`);
    const status = exitCode === null ? "did not finish" : `exited with code ${exitCode}`;
    return textReply(`\`${line}\` ${status}${output ? ` and printed:\n\n${output}` : " and printed nothing."}`);
  },
};
/** A shell line of several commands, written without backticks. */
const LINE = /^run ([^`\s][^`]*?(?:&&|\|\||;|\|)[^`]*)$/i;

/** s05's rules, in the order they are tried. */
export const S05_RULES: DemoRule[] = [runLine];
