// Memory stays bounded because the writers wait for their reader: a page is not taken from the service (write()
// does not resolve) until the reader has taken that page's bytes. Shown by a reader that reads one chunk per turn
// of the event loop and notes how much it had read when write() resolved: a writer that did not wait would
// resolve before the first read.
import { describe, expect, test } from "bun:test";
import { unzipSync } from "fflate";
import { exportFormats, type ExportFormat, type ExportWriter } from "./writer.ts";
import { exportWriter } from "./formats.ts";
import { noise, record } from "./test-fixtures.ts";

const opts = { includeContent: true, includeNotes: true, exportedAt: 1767225600 };
/** 40 items of 16 KB of noise: about 650 KB whatever the format, far over any stream's buffer. */
const page = Array.from({ length: 40 }, (_, i) => record(i + 1, { contentMarkdown: noise(16 * 1024, i + 1) }));
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Reads chunk by chunk until `until` settles; the bytes read by then and the reader, to go on with. */
async function readUntil(w: ExportWriter, until: Promise<unknown>) {
  const it = w.output[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let read = it.next();
  let settled = false;
  const done = until.then(
    () => (settled = true),
    () => (settled = true),
  );
  let readsBefore = 0;
  for (;;) {
    await nextTurn();
    const got = await Promise.race([read, done.then(() => null)]);
    if (got === null) break;
    if (got.done) throw new Error("the output ended before the write resolved");
    chunks.push(got.value);
    readsBefore++;
    read = it.next();
    if (settled) break;
  }
  const readAt = chunks.reduce((n, c) => n + c.length, 0);
  const rest = async () => {
    for (let r = await read; !r.done; r = await it.next()) chunks.push(r.value);
    return new Uint8Array(Buffer.concat(chunks));
  };
  return { readAt, readsBefore, rest, next: () => read };
}

describe("backpressure", () => {
  test.each(exportFormats.map((f) => [f]))("%s: write() resolves only once the reader has taken the page's bytes", async (format: ExportFormat) => {
    const w = exportWriter(format, opts);
    const written = w.write(page);
    const { readAt, readsBefore, rest } = await readUntil(w, written);
    await written;
    expect(w.itemCount).toBe(page.length);
    const finished = w.finish();
    const all = await rest();
    await finished;
    // The writer waited through several reads, and by then the reader had the page: all but what finish() adds
    // (the JSON's closing bracket; the ZIP's central directory and what archiver and zlib buffer, well under
    // the page's size).
    expect(readsBefore).toBeGreaterThan(1);
    const after = all.length - readAt;
    if (format === "csv") expect(after).toBe(0);
    if (format === "json") expect(after).toBe("\n]}\n".length);
    if (format === "markdown_zip") {
      expect(all.length).toBeGreaterThan(500_000);
      expect(after).toBeLessThan(128 * 1024);
      expect(Object.keys(unzipSync(all)).length).toBe(page.length);
    }
  });

  test.each(exportFormats.map((f) => [f]))("%s: abort() rejects the waiting write and fails the reader with the error", async (format: ExportFormat) => {
    const w = exportWriter(format, opts);
    const it = w.output[Symbol.asyncIterator]();
    const written = w.write(page);
    // One read, so that archiver is in the middle of the page; then nobody reads: the write waits.
    await it.next();
    let state = "pending";
    written.then(
      () => (state = "resolved"),
      () => (state = "rejected"),
    );
    await nextTurn();
    expect(state).toBe("pending");
    const err = new Error("the store failed");
    w.abort(err);
    await expect(written).rejects.toBe(err);
    let readError: unknown;
    try {
      for (let r = await it.next(); !r.done; r = await it.next());
    } catch (e) {
      readError = e;
    }
    expect(readError).toBe(err);
  });

  test.each(exportFormats.map((f) => [f]))("%s: a reader that stops, then abort(), never leaves a write waiting", async (format: ExportFormat) => {
    const w = exportWriter(format, opts);
    const it = w.output[Symbol.asyncIterator]();
    const written = w.write(page);
    await it.next();
    // What a store does on a failed write: it stops iterating (return()), its put rejects, the service aborts.
    await it.return?.();
    const err = new Error("disk full");
    w.abort(err);
    const outcome = await written.then(
      () => "resolved",
      (e: unknown) => (e === err || (e instanceof Error && /reader stopped/.test(e.message)) ? "rejected" : `rejected with ${String(e)}`),
    );
    expect(outcome).toBe("rejected");
  });
});
