/** Every benchmark, one after another: node --import tsx run-all.ts (or pnpm bench from the root). */
await import("./concurrent-dispatch.ts");
await import("./tracing-overhead.ts");
await import("./trace-view.ts");
