/**
 * A disk that fills up, for the files a test names: while it lasts, writes to a path that
 * `matches` accepts fail as writes to a full disk do (`ENOSPC`), once `room` more bytes have gone
 * in (the write that crosses it writes part of its bytes, as a real one does); every other write
 * goes through. It covers node:fs's synchronous writes, by path or by a descriptor opened on such
 * a path. The harness imports those functions by name, so they are replaced on the module and the
 * names are brought in line (`syncBuiltinESMExports`), in this process only: a test that needs it
 * runs the CLI in process.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { cleanUpAfter } from "./clean-up-after.ts";

/** What a full disk allows, and for which files. */
export interface FullDisk {
  /** The files the disk is full for (their absolute paths). */
  matches: (path: string) => boolean;
  /** Bytes the disk still takes before it is full (default 0). */
  room?: number;
}

/**
 * Make the disk full for the files `disk` names until the test ends (or `restore` is called).
 * Returns `restore`.
 */
export function failWrites(disk: FullDisk): () => void {
  const real = {
    openSync: fs.openSync,
    writeSync: fs.writeSync,
    writeFileSync: fs.writeFileSync,
    closeSync: fs.closeSync,
  };
  const full = new Set<number>(); // descriptors open on a file the disk is full for
  let room = disk.room ?? 0;
  const matches = (path: unknown) => (typeof path === "string" || path instanceof URL) && disk.matches(String(path));
  const noSpace = (call: string, path: string) =>
    Object.assign(new Error(`ENOSPC: no space left on device, ${call} '${path}'`), {
      code: "ENOSPC",
      errno: -28,
      syscall: call,
      path,
    });
  /** How many of `length` bytes go in; throws once none does. */
  const take = (length: number, call: string, path: string) => {
    if (room <= 0 && length > 0) throw noSpace(call, path);
    const taken = Math.min(room, length);
    room -= taken;
    return taken;
  };
  const patched = {
    openSync(path: fs.PathLike, ...rest: unknown[]): number {
      const fd = (real.openSync as (...args: unknown[]) => number)(path, ...rest);
      if (matches(path)) full.add(fd);
      return fd;
    },
    writeSync(fd: number, buffer: unknown, ...rest: unknown[]): number {
      if (!full.has(fd)) return (real.writeSync as (...args: unknown[]) => number)(fd, buffer, ...rest);
      const bytes = typeof buffer === "string" ? Buffer.from(buffer) : Buffer.from(buffer as Uint8Array);
      const offset = typeof rest[0] === "number" ? rest[0] : 0;
      const length = typeof rest[1] === "number" ? rest[1] : bytes.length - offset;
      const taken = take(length, "write", `fd ${fd}`);
      return real.writeSync(fd, bytes, offset, taken);
    },
    writeFileSync(path: fs.PathOrFileDescriptor, data: unknown, ...rest: unknown[]): void {
      if (!matches(path)) {
        (real.writeFileSync as (...args: unknown[]) => void)(path, data, ...rest);
        return;
      }
      const bytes = typeof data === "string" ? Buffer.from(data) : Buffer.from(data as Uint8Array);
      const taken = take(bytes.length, "write", String(path));
      real.writeFileSync(path, bytes.subarray(0, taken));
      if (taken < bytes.length) throw noSpace("write", String(path));
    },
    closeSync(fd: number): void {
      full.delete(fd);
      real.closeSync(fd);
    },
  };
  Object.assign(fs, patched);
  syncBuiltinESMExports();
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    Object.assign(fs, real);
    syncBuiltinESMExports();
  };
  cleanUpAfter(restore);
  return restore;
}
