export * from "./agent-loop.ts";
export * from "./last-written-list.ts";
export * from "./parse-todos.ts";
export * from "./reminders.ts";
export * from "./restate-plan.ts";
export * from "./todo-lines.ts";
export * from "./todo-list.ts";
export * from "./todo-write.ts";
