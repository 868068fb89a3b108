/**
 * `todo_write`: the model writes its plan down. One more entry in s02's tool map, in Claude Code's
 * TodoWrite shape; each call sends the whole list and replaces the one before. Its description is
 * where the model learns the rules; `parseTodos` holds it to those a harness can check, so a call
 * that breaks one is answered with an error naming the rule, and the list stays as it was.
 *
 * It changes nothing outside the harness, so it asks no permission: `todoWriteUngated` sends its
 * calls past s05's gate (and s06's hooks, which sit around the gate) straight to dispatch.
 */
import type { Tool as ApiTool } from "@anthropic-ai/sdk/resources/messages";
import { type CallRunner, dispatch, type Tool } from "@harness/s02-tool-dispatch";
import { toolOutput } from "@harness/shared";
import { TODO_WRITE } from "./last-written-list.ts";
import { parseTodos, type Todo } from "./parse-todos.ts";
import type { TodoList } from "./todo-list.ts";

/** What the model reads about the tool: when to use it, and the rules of the list. */
export const TODO_WRITE_DESCRIPTION = [
  "Write your plan for the current task as a todo list, and keep it current; the user sees it as it changes.",
  "Use it for work of three steps or more; skip it for a single simple step.",
  "Each call sends the whole list and replaces the previous one.",
  "Mark an item in_progress before you start on it, and only one item at a time.",
  "Mark it completed as soon as it is fully done, and never while its tests fail or an error is unresolved;",
  "then mark the next one in_progress. Add items you discover; remove those that no longer apply.",
  'content says what to do ("Run the tests"); activeForm says it as it is being done ("Running the tests").',
].join(" ");

/** The input's JSON Schema: TodoWrite's. */
const TODO_SCHEMA: ApiTool["input_schema"] = {
  type: "object",
  properties: {
    todos: {
      type: "array",
      description: "The whole updated list.",
      items: {
        type: "object",
        properties: {
          content: { type: "string", minLength: 1 },
          status: { type: "string", enum: ["pending", "in_progress", "completed"] },
          activeForm: { type: "string", minLength: 1 },
        },
        required: ["content", "status", "activeForm"],
        additionalProperties: false,
      },
    },
  },
  required: ["todos"],
  additionalProperties: false,
};

/** The tool, writing into `list`. */
export function todoWrite(list: TodoList): Tool<Todo[]> {
  return {
    name: TODO_WRITE,
    description: TODO_WRITE_DESCRIPTION,
    inputSchema: TODO_SCHEMA,
    parse: parseTodos,
    concurrencySafe: false, // two calls in one turn replace the list in the order written
    async run(todos) {
      list.replace(todos);
      const done = todos.filter((item) => item.status === "completed").length;
      const working = todos.find((item) => item.status === "in_progress");
      const now = working ? `; in progress: ${working.content}` : "";
      return toolOutput(`The list is saved: ${done} of ${todos.length} completed${now}.`);
    },
  };
}

/** `runCall` for every call but `todo_write`, which goes straight to dispatch: it asks no permission. */
export function todoWriteUngated(runCall: CallRunner): CallRunner {
  return (tools, call, context) =>
    call.name === TODO_WRITE ? dispatch(tools, call, context) : runCall(tools, call, context);
}
