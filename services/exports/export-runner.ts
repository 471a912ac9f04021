// Runs one export job: pages through the caller's items over the bus (the items service applies the key's scope),
// hands each page to the format's writer and streams what it writes into the blob store. One page of records is
// held at a time: the next is asked for only once the writer has taken this one and the store has its bytes.
import { exportPageSubject, type ExportPageReply, type ExportPageRequest } from "@trove/contracts";
import type { BlobStore, ByteSource } from "@trove/blobs";
import type { Bus } from "@trove/bus";
import { nextTurn, nowSeconds } from "@trove/db";
import { callerHeaders } from "@trove/host";
import { exportWriter } from "@trove/portability";
import { pageRequest, type ExportFormat } from "./exports.service.ts";
import type { ExportParams } from "./job-view.ts";
import type { JobRow, JobsRepository } from "./jobs.repository.ts";
import { LeaseLost, type Lease } from "./lease.ts";

/** Records asked for per page; the items service also cuts a page at a byte budget of content. */
const pageRecords = 200;

export class ExportRunner {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly bus: Bus,
    private readonly blobs: BlobStore,
    private readonly opts: { requestTimeoutMs: number; retentionHours: number },
  ) {}

  async run(job: JobRow, lease: Lease): Promise<void> {
    const params = job.params as unknown as ExportParams;
    // One key per attempt: a replica that lost the job (too slow to renew its lease) and cleans up after itself
    // never removes the file of the replica that took the job over.
    const key = `export-${job.id}-${job.attempts}`;
    // A resumed job starts over, counters included.
    await this.jobs.resetExport(job.id, lease.owner);
    const writer = exportWriter(job.format as ExportFormat, { includeContent: params.includeContent, includeNotes: params.includeNotes, exportedAt: nowSeconds() });
    let size = 0;
    const stored = this.blobs.putStream(key, counted(writer.output, (n) => (size += n)));
    // A failing store stops the writer too (nothing reads its output any more).
    stored.catch((err) => writer.abort(err));
    let count = 0;
    try {
      let after: string | undefined;
      for (;;) {
        await nextTurn();
        lease.check();
        const request: ExportPageRequest = { ...pageRequest(params), limit: pageRecords, ...(after ? { after } : {}) };
        const page = (await this.bus.request(exportPageSubject, request, { timeoutMs: this.opts.requestTimeoutMs, headers: callerHeaders(job.caller) })) as ExportPageReply;
        await writer.write(page.records);
        count += page.records.length;
        await this.jobs.setExportProgress(job.id, lease.owner, count);
        if (page.next === null) break;
        after = page.next;
      }
      await writer.finish();
      await stored;
    } catch (err) {
      writer.abort(err);
      await stored.catch(() => {});
      await this.blobs.delete(key).catch(() => {});
      throw err;
    }
    const now = nowSeconds();
    const done = await this.jobs.completeExport(job.id, lease.owner, { blob: key, itemCount: count, sizeBytes: size, now, expiresAt: now + this.opts.retentionHours * 3600 });
    // Another replica took the job over meanwhile (this one was too slow to renew): its own run writes the file.
    if (!done) throw new LeaseLost();
  }
}

/** The writer's bytes as they pass to the store, counted. */
async function* counted(source: ByteSource, add: (n: number) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    add(chunk.byteLength);
    yield chunk;
  }
}
