/**
 * Appending a line to a file that may fill up. A write that fails part way (a full disk, ENOSPC;
 * a file over its size limit; an I/O error) takes back what it wrote of the line, so the file
 * still ends with its last whole line, and throws one line that names the file, why, and what it
 * kept, instead of Node's bare `ENOSPC: no space left on device, write`.
 */
import { fstatSync, ftruncateSync, writeSync } from "node:fs";

/** What a writer is, for the error line: `the trace /path/x.jsonl`, and what the file keeps. */
export interface AppendedFile {
  /** `the trace <path>`, `the transcript <path>`. */
  what: string;
  /** What the file holds when a write fails: `every record before this one, whole`. */
  kept: string;
}

/**
 * Append `bytes` (one or more whole lines) to the file open at `fd`.
 * Contract: returns once every byte is written; otherwise the file is as it was before the call
 * (as far as the disk lets it be truncated back) and this throws one line.
 */
export function appendWhole(fd: number, bytes: Buffer, file: AppendedFile): void {
  const size = fstatSync(fd).size;
  try {
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
  } catch (error) {
    try {
      ftruncateSync(fd, size); // a torn line would be the file's last: take it back
    } catch {} // the line stays torn; the readers skip a torn last line
    throw new Error(`${file.what} could not be written (${whyNot(error)}): it holds ${file.kept}`, { cause: error });
  }
}

/** Why a write failed, in a few words: a full disk by name, anything else by its message's first line. */
export function whyNot(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOSPC") return "no space left on the disk, ENOSPC";
  if (code === "EDQUOT") return "the disk quota is used up, EDQUOT";
  return (error instanceof Error ? error.message : String(error)).split("\n")[0];
}
