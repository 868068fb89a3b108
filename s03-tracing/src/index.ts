export * from "./agent-loop.ts";
export * from "./format-trace.ts";
export * from "./read-trace.ts";
export * from "./redact.ts";
export * from "./render-html.ts";
export * from "./to-otlp.ts";
export * from "./trace-record.ts";
export * from "./trace-writer.ts";
