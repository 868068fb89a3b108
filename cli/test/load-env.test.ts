import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadEnv, REPO_ROOT } from "../src/load-env.ts";

let dir: string;
let envFile: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "load-env-"));
  envFile = join(dir, ".env");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("loadEnv", () => {
  it("reads variables from the .env file", () => {
    writeFileSync(envFile, "MODEL_ID=from-file\n# a comment\nQUOTED='a b'\n");
    const env = loadEnv({}, envFile);
    expect(env.values.MODEL_ID).toBe("from-file");
    expect(env.values.QUOTED).toBe("a b");
    expect(env.sourceOf("MODEL_ID")).toBe(envFile);
  });

  it("lets the shell win over the .env file", () => {
    writeFileSync(envFile, "MODEL_ID=from-file\n");
    const env = loadEnv({ MODEL_ID: "from-shell" }, envFile);
    expect(env.values.MODEL_ID).toBe("from-shell");
    expect(env.sourceOf("MODEL_ID")).toBe("the shell");
  });

  it("treats an empty shell variable as unset, so .env still counts", () => {
    writeFileSync(envFile, "MODEL_ID=from-file\n");
    const env = loadEnv({ MODEL_ID: "" }, envFile);
    expect(env.values.MODEL_ID).toBe("from-file");
    expect(env.sourceOf("MODEL_ID")).toBe(envFile);
  });

  it("treats an empty or blank variable as unset in .env too, and keeps the two places apart", () => {
    writeFileSync(envFile, "ANTHROPIC_API_KEY=\nMODEL_ID=from-file\nANTHROPIC_AUTH_TOKEN='  '\n");
    const env = loadEnv({ ANTHROPIC_AUTH_TOKEN: "tok", ANTHROPIC_BASE_URL: "" }, envFile);
    expect(env.values.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.values.MODEL_ID).toBe("from-file"); // not "", which would have been sent as the model
    expect(env.shell).toEqual({ ANTHROPIC_AUTH_TOKEN: "tok" });
    expect(env.file).toEqual({ MODEL_ID: "from-file" });
    expect(env.sourceOf("ANTHROPIC_API_KEY")).toBeUndefined();
    expect(env.sourceOf("ANTHROPIC_BASE_URL")).toBeUndefined();
  });

  it("works without a .env file", () => {
    const env = loadEnv({ A: "1" }, join(dir, "missing.env"));
    expect(env.values).toEqual({ A: "1" });
    expect(env.sourceOf("B")).toBeUndefined();
  });

  it("never writes .env into the shell's variables", () => {
    writeFileSync(envFile, "HARNESS_LOAD_ENV_TEST=1\n");
    const shell: NodeJS.ProcessEnv = {};
    loadEnv(shell, envFile);
    expect(shell).toEqual({});
    expect(process.env.HARNESS_LOAD_ENV_TEST).toBeUndefined();
  });

  it("looks for .env at the repository root by default", () => {
    expect(existsSync(join(REPO_ROOT, "pnpm-workspace.yaml"))).toBe(true);
  });
});
