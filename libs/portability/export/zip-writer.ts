// Appending to an archiver ZIP without letting it queue more than one batch of entries.
import type { ZipArchive } from "archiver";

/**
 * Appends entries to an archiver ZIP and tells when all of them have been written out. archiver queues what is
 * appended (bodies included) until its output is read, so waiting for the queue to empty before appending more
 * is what bounds memory when the reader (the blob store) is slower than the producer.
 */
export class ZipWriter {
  private appended = 0;
  private processed = 0;
  private failure: unknown;
  private waiting: { resolve(): void; reject(err: unknown): void } | undefined;

  constructor(private readonly archive: ZipArchive) {
    archive.on("entry", () => {
      this.processed++;
      this.wake();
    });
    archive.on("error", (err) => this.fail(err));
    archive.on("warning", (err) => this.fail(err));
  }

  /** The store's write failing stops the export too (nothing reads the archive any more). */
  failWith(p: Promise<unknown>) {
    p.catch((err) => this.fail(err));
  }

  add(name: string, text: string, date: Date) {
    if (this.failure !== undefined) return;
    this.archive.append(Buffer.from(text, "utf8"), { name, date });
    this.appended++;
  }

  /** Resolves once archiver has written out every entry appended so far; rejects once the ZIP has failed. */
  drained(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.wake();
    });
  }

  /** Stops the writer: a waiting or later `drained` rejects with `err`, nothing more is appended. */
  fail(err: unknown) {
    this.failure ??= err ?? new Error("the ZIP could not be written");
    this.wake();
  }

  private wake() {
    const w = this.waiting;
    if (!w) return;
    if (this.failure !== undefined) w.reject(this.failure);
    else if (this.processed >= this.appended) w.resolve();
    else return;
    this.waiting = undefined;
  }
}
