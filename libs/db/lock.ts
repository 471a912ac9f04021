// PGlite does not lock its data directory: a second process could open it and lose writes.
// An exclusive lock file holding the owner's pid keeps a second process out; a stale one (dead pid) is taken over.
// A container's process often has the same pid on every start (1, or another low number), so a lock left by a
// killed run may hold our own pid: it is ours only if this process took it, which the set below remembers.
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "@trove/errors";

export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(`data directory ${dir} is in use by process ${pid}; stop it or set TROVE_DATA_DIR to another directory`);
    this.name = "DataDirLockedError";
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The directories this process holds the lock of. */
const held = new Set<string>();

/** Takes the lock on `dir`; returns its release. Throws DataDirLockedError while a live process holds it. */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "trove.lock");
  for (let tries = 0; tries < 3; tries++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      held.add(file);
      return () => {
        held.delete(file);
        try {
          if (readFileSync(file, "utf8").trim() === String(process.pid)) unlinkSync(file);
        } catch {
          // Already gone.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number.parseInt(readFileSync(file, "utf8").trim(), 10);
      if (Number.isInteger(pid) && pid !== process.pid && alive(pid)) throw new DataDirLockedError(dir, pid);
      if (pid === process.pid && held.has(file)) throw new AppError("internal_error", `data directory ${dir} is already open in this process`);
      unlinkSync(file); // stale: its owner is gone, or was an earlier run with this pid
    }
  }
  throw new Error(`could not lock data directory ${dir}`);
}
