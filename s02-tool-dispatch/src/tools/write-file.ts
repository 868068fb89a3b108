/**
 * write_file: create or overwrite a text file (parent directories are created). It overwrites only
 * what read_file could read, a regular file of UTF-8 text: a binary file, or text in another
 * encoding, is refused rather than lost, and a pipe is never opened for writing (that would block).
 * To replace such a file on purpose, delete it first (with bash), then write.
 */
import { constants } from "node:fs";
import { type FileHandle, mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { type ToolResult, toolOutput } from "@harness/shared";
import { codedError } from "../dispatch.ts";
import { defineTool } from "../tool.ts";
import { openRegularFile, writeAt } from "./open-regular-file.ts";
import { notTextError, readLines } from "./read-lines.ts";
import { resolveInWorkdir } from "./resolve-in-workdir.ts";

/** Create or overwrite a file. */
export const writeFileTool = defineTool({
  name: "write_file",
  description:
    "Create or overwrite a file in the working directory with the given content. " +
    "An existing binary or non-UTF-8 file is not overwritten.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path relative to the working directory." },
      content: { type: "string", description: "The whole new content of the file." },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  concurrencySafe: false,
  async run({ path, content }, { cwd, signal }) {
    const resolved = resolveInWorkdir(cwd, path);
    if (!resolved.ok) return codedError(resolved.code, resolved.reason);
    await mkdir(dirname(resolved.path), { recursive: true });
    const handle = (await createNew(resolved.path)) ?? (await openToOverwrite(resolved.path, path, signal));
    if ("isError" in handle) return handle;
    const bytes = Buffer.from(content);
    try {
      await handle.truncate(0);
      await writeAt(handle, bytes, 0);
    } finally {
      await handle.close();
    }
    return toolOutput(`Wrote ${bytes.length} bytes to ${path}.`);
  },
});

/** Create the file, or return null when something is already there (O_EXCL: never opens what exists). */
async function createNew(path: string): Promise<FileHandle | null> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
  return open(path, flags).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EEXIST") return null;
    throw error;
  });
}

/** Open an existing file to overwrite it if read_file could read it; otherwise the error saying why not. */
async function openToOverwrite(path: string, shown: string, signal?: AbortSignal): Promise<FileHandle | ToolResult> {
  const opened = await openRegularFile(path, shown, "write");
  if (!opened.ok) return codedError(opened.code, opened.reason);
  const read = await readLines(opened.handle, { strict: true, maxLineLength: 0, signal }, () => {}).catch(
    async (error) => {
      await opened.handle.close();
      throw error;
    },
  );
  if (read.kind === "done") return opened.handle;
  await opened.handle.close();
  if (read.kind === "interrupted")
    return codedError("interrupted", `the user interrupted before ${shown} was written.`);
  const refusal = `write_file does not overwrite it; to replace it on purpose, delete it first (bash: rm ${shown})`;
  return notTextError(read.kind, shown, opened.info.size, refusal);
}
