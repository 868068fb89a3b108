/** write_file: create or overwrite a text file (parent directories are created). */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { toolOutput } from "@harness/shared";
import { z } from "zod";
import { codedError } from "../dispatch.ts";
import { defineTool } from "../tool.ts";
import { resolveInWorkdir } from "./resolve-in-workdir.ts";

/** Create or overwrite a file. */
export const writeFileTool = defineTool({
  name: "write_file",
  description: "Create or overwrite a file in the working directory with the given content.",
  schema: z.object({
    path: z.string().describe("Path relative to the working directory."),
    content: z.string().describe("The whole new content of the file."),
  }),
  concurrencySafe: false,
  async run({ path, content }, { cwd }) {
    const resolved = resolveInWorkdir(cwd, path);
    if (!resolved.ok) return codedError("outside_workdir", resolved.reason);
    await mkdir(dirname(resolved.path), { recursive: true });
    await writeFile(resolved.path, content);
    return toolOutput(`Wrote ${Buffer.byteLength(content)} bytes to ${path}.`);
  },
});
