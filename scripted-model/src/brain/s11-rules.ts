/**
 * s11's demo rule: a task of three steps worked through with a written plan. Asked to survey a
 * project, the scripted model writes a todo list (list the files, read each one, report), lists
 * the files, marks the first step done and reads the files one a turn (at most four, by name),
 * then reports and marks every step completed. It writes nothing while it reads, so a harness that
 * reminds after three turns without a todo_write reminds it once, on the last read. Every step is
 * read off the conversation, as the other rules' are.
 */
import { text, textReply, toolUse, reply as withBlocks } from "../script.ts";
import type { DemoRule, Exchange } from "./read-conversation.ts";
import { fileText } from "./read-result.ts";

/** The most files the survey reads. */
const SURVEY_FILES = 4;

/** The plan, its first `done` steps completed and the next one in progress (none past the last). */
function plan(done: number) {
  const steps = [
    ["List the project's files", "Listing the project's files"],
    ["Read each file", "Reading each file"],
    ["Write the report", "Writing the report"],
  ];
  return steps.map(([content, activeForm], i) => ({
    content,
    status: i < done ? "completed" : i === done ? "in_progress" : "pending",
    activeForm,
  }));
}

/** The files a glob result lists, by name, at most `SURVEY_FILES`. */
function listed(glob: Exchange): string[] {
  const paths = glob.output.split("\n").filter((line) => line !== "" && !line.startsWith("["));
  return paths.sort().slice(0, SURVEY_FILES);
}

/** "Survey this project": plan, list, read one file a turn, report. */
const surveyProject: DemoRule = {
  example: "Survey this project: list its files, read each one, then report",
  needs: ["todo_write", "glob", "read_file"],
  matches: (prompt) => /^survey this project\b/i.test(prompt.trim()),
  next({ exchanges }) {
    const todo = (done: number) => toolUse("todo_write", { todos: plan(done) });
    const glob = exchanges.find((e) => e.name === "glob");
    if (!glob) {
      return withBlocks([
        text("Three steps; I'll write them down first."),
        todo(0),
        toolUse("glob", { pattern: "**/*" }),
      ]);
    }
    if (glob.isError || glob.output.startsWith("No files match"))
      return textReply(`There is nothing to survey: ${glob.output}`);
    const files = listed(glob);
    const reads = exchanges.filter((e) => e.name === "read_file");
    if (reads.length === 0) return withBlocks([todo(1), toolUse("read_file", { path: files[0] })]);
    if (reads.length < files.length) return withBlocks([toolUse("read_file", { path: files[reads.length] })]);
    if (exchanges.at(-1)?.name === "todo_write") return textReply("All three steps are completed.");
    // a harness's reminder may follow a result: the file is what comes before it
    const lines = (read: Exchange) =>
      fileText({ ...read, output: read.output.split("\n\n<system-reminder>")[0] }).split("\n").length;
    const count = (n: number) => `${n} line${n === 1 ? "" : "s"}`;
    const each = reads.map((read, i) => `${files[i]} (${read.isError ? "unreadable" : count(lines(read))})`);
    return withBlocks([text(`I read ${files.length} files: ${each.join(", ")}.`), todo(3)]);
  },
};

/** s11's rules, in the order they are tried. */
export const S11_RULES: DemoRule[] = [surveyProject];
