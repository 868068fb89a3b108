/** Every benchmark, one after another: node --import tsx run-all.ts (or pnpm bench in bench/). */
await import("./tracing-overhead.ts");
await import("./trace-view.ts");
