// Text written by a writer, handed as UTF-8 chunks to one reader that pulls them (the blob store), with the
// writer waiting for the reader: what makes the JSON and CSV exports hold about one page whatever their size.

/** Characters gathered before they are encoded as one chunk: few store writes, little memory. */
const chunkChars = 64 * 1024;

export class ByteChannel implements AsyncIterable<Uint8Array> {
  private parts: string[] = [];
  private partsChars = 0;
  private readonly queue: Uint8Array[] = [];
  private closed = false;
  private failure: unknown;
  private failed = false;
  private iterated = false;
  private reader: { resolve(r: IteratorResult<Uint8Array>): void; reject(err: unknown): void } | undefined;
  private writer: { resolve(): void; reject(err: unknown): void } | undefined;
  private readonly encoder = new TextEncoder();

  /** Adds text to the output (held until enough is gathered, `drained` or `close`). Ignored once failed. */
  write(text: string) {
    if (this.failed || this.closed) return;
    this.parts.push(text);
    this.partsChars += text.length;
    if (this.partsChars >= chunkChars) this.flush();
  }

  /** Resolves once the reader has taken every chunk written so far; rejects when the channel failed. */
  drained(): Promise<void> {
    this.flush();
    return new Promise((resolve, reject) => {
      this.writer = { resolve, reject };
      this.wake();
    });
  }

  /** No more text: the reader ends after the last chunk. */
  close() {
    this.flush();
    this.closed = true;
    this.wake();
  }

  /** Stops the output: the reader's next read throws `err`, a waiting writer is rejected with it. */
  fail(err: unknown) {
    if (this.failed) return;
    this.failed = true;
    this.failure = err;
    this.queue.length = 0;
    this.parts = [];
    this.wake();
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (this.iterated) throw new Error("an export's output is read once");
    this.iterated = true;
    return {
      next: () =>
        new Promise<IteratorResult<Uint8Array>>((resolve, reject) => {
          this.reader = { resolve, reject };
          this.wake();
        }),
      // The reader stopped early (the store failed, a stream was cancelled): the writer must not wait for it.
      return: async () => {
        this.fail(new Error("the export's reader stopped"));
        return { done: true, value: undefined };
      },
    };
  }

  private flush() {
    if (this.parts.length === 0) return;
    const chunk = this.encoder.encode(this.parts.join(""));
    this.parts = [];
    this.partsChars = 0;
    this.queue.push(chunk);
    this.wake();
  }

  private wake() {
    const r = this.reader;
    if (r) {
      this.reader = undefined;
      if (this.failed) r.reject(this.failure);
      else if (this.queue.length > 0) r.resolve({ done: false, value: this.queue.shift()! });
      else if (this.closed) r.resolve({ done: true, value: undefined });
      else this.reader = r;
    }
    const w = this.writer;
    if (w) {
      this.writer = undefined;
      if (this.failed) w.reject(this.failure);
      else if (this.queue.length === 0) w.resolve();
      else this.writer = w;
    }
  }
}
