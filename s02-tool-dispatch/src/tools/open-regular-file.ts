/**
 * Opening a file without freezing. Only a regular file is opened: `open` on a named pipe waits
 * until something writes to it (Ctrl-C included, the process hangs), and a socket or a device is
 * not a file to read or edit. The kind is checked on the path first, then the file is opened with
 * O_NONBLOCK and checked again on the open handle, so a pipe put there in between cannot block.
 * Leaves out: what the file contains (see `readLines`).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import type { ToolErrorCode } from "../dispatch.ts";

/** An open regular file and its stats, or why it was not opened (the error code and its message). */
export type Opened = { ok: true; handle: FileHandle; info: Stats } | { ok: false; code: ToolErrorCode; reason: string };

/**
 * Open the regular file at `path` to read it (`"read"`) or to read and change it in place
 * (`"write"`); `shown` is the path as the model wrote it, for the messages.
 * Contract: never blocks on a pipe; a missing file, a non-regular one and a permission refused are
 * values; any other failure throws.
 */
export async function openRegularFile(path: string, shown: string, mode: "read" | "write"): Promise<Opened> {
  try {
    const before = await stat(path);
    if (!before.isFile()) return notAFile(before, shown);
    const access = mode === "read" ? constants.O_RDONLY : constants.O_RDWR;
    const handle = await open(path, access | constants.O_NONBLOCK);
    const info = await handle.stat(); // the file really opened, whatever the path names now
    if (info.isFile()) return { ok: true, handle, info };
    await handle.close();
    return notAFile(info, shown);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, code: "not_found", reason: `${shown} does not exist.` };
    if (code === "EACCES" || code === "EPERM") {
      return { ok: false, code: "permission_denied", reason: `${shown} may not be opened (permission denied).` };
    }
    throw error;
  }
}

/** Write all of `bytes` at `position`, however many writes it takes. */
export async function writeAt(handle: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    done += bytesWritten;
  }
}

function notAFile(info: Stats, shown: string): Opened & { ok: false } {
  if (info.isDirectory()) {
    return { ok: false, code: "not_a_file", reason: `${shown} is a directory; use glob to list its files.` };
  }
  const kind = info.isFIFO() ? "a named pipe" : info.isSocket() ? "a socket" : "a device";
  return { ok: false, code: "not_a_file", reason: `${shown} is ${kind}, not a regular file.` };
}

/** The most a file a project ships for the harness (settings, agent files, skills, server lists) may hold. */
export const MAX_PROJECT_FILE_BYTES = 1024 * 1024;

/**
 * Read a file a project ships for the harness itself, synchronously, as it starts: only a regular
 * file of at most `maxBytes`, opened with O_NONBLOCK and checked on the open handle, so a named
 * pipe or a device a cloned repository puts in its place cannot freeze the start, nor a huge one
 * fill the memory.
 * Contract: throws an Error saying why (missing, not a regular file, too big, refused).
 */
export function readProjectFile(path: string, maxBytes = MAX_PROJECT_FILE_BYTES): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new Error(`${notAFile(info, path).reason}`);
    if (info.size > maxBytes) throw new Error(`${path} is ${info.size} bytes, more than ${maxBytes}`);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
