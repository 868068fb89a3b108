/** read_file: a text file with line numbers, a window of it for big files; binary is refused. */
import { open, readFile, stat } from "node:fs/promises";
import { toolOutput } from "@harness/shared";
import { z } from "zod";
import { codedError } from "../dispatch.ts";
import { defineTool } from "../tool.ts";
import { resolveInWorkdir } from "./resolve-in-workdir.ts";

/** Lines returned when no limit is given. */
export const DEFAULT_READ_LIMIT = 2000;
/** Characters kept of one line. */
export const MAX_LINE_LENGTH = 2000;

/** Read a text file with line numbers, a window of at most `DEFAULT_READ_LIMIT` lines by default. */
export const readFileTool = defineTool({
  name: "read_file",
  description:
    "Read a text file in the working directory. Lines are numbered from 1. For big files, pass offset " +
    `(first line) and limit (number of lines, default ${DEFAULT_READ_LIMIT}). Binary files are refused.`,
  schema: z.object({
    path: z.string().describe("Path relative to the working directory."),
    offset: z.number().int().min(1).optional().describe("First line to return (1-based)."),
    limit: z.number().int().min(1).optional().describe("Number of lines to return."),
  }),
  concurrencySafe: true,
  async run({ path, offset = 1, limit = DEFAULT_READ_LIMIT }, { cwd }) {
    const resolved = resolveInWorkdir(cwd, path);
    if (!resolved.ok) return codedError("outside_workdir", resolved.reason);
    const info = await stat(resolved.path).catch(() => null);
    if (!info) return codedError("not_found", `${path} does not exist.`);
    if (info.isDirectory()) return codedError("not_found", `${path} is a directory; use glob to list files.`);
    if (await looksBinary(resolved.path)) {
      return codedError("binary_file", `${path} is a binary file (${info.size} bytes); read_file shows text only.`);
    }
    const lines = (await readFile(resolved.path, "utf8")).split("\n");
    if (lines.at(-1) === "") lines.pop(); // a final newline ends the last line; it does not start one
    if (lines.length === 0) return toolOutput(`(${path} is empty)`);
    if (offset > lines.length)
      return codedError("invalid_arguments", `offset ${offset} is past the end (${lines.length} lines).`);
    const window = lines.slice(offset - 1, offset - 1 + limit);
    const width = String(offset + window.length - 1).length;
    const numbered = window.map((line, i) => {
      const text = line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH)}… [line cut]` : line;
      return `${String(offset + i).padStart(width)}\t${text}`;
    });
    const last = offset + window.length - 1;
    if (offset > 1 || last < lines.length) {
      numbered.push(`[lines ${offset}-${last} of ${lines.length}; pass offset to read more]`);
    }
    return toolOutput(numbered.join("\n"));
  },
});

/** A NUL byte in the first 8 KiB marks a file as binary, as git and grep decide. */
export async function looksBinary(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}
