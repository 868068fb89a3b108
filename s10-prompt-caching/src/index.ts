export * from "./agent-loop.ts";
export * from "./cache-meter.ts";
export * from "./cached.ts";
export * from "./flags.ts";
export * from "./list-prices.ts";
export * from "./place-breakpoints.ts";
