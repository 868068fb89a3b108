import { defineConfig } from "vitest/config";

// the shell grammar loads in the background (src/shell/bash-parser.ts): the tests that decide a
// command themselves, not through the gate, wait for it first, as the gate does
export default defineConfig({ test: { setupFiles: ["./test/shell-parser-ready.ts"] } });
