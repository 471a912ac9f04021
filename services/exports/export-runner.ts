// Runs one export job: pages through the caller's items over the bus (the items service applies the key's scope),
// hands each page to the format's writer and streams what it writes into the blob store. One page of records is
// held at a time: the next is asked for only once the writer has taken this one and the store has its bytes.
import { exportPageSubject, type ExportPageReply, type ExportPageRequest } from "@trove/contracts";
import type { BlobStore, ByteSource } from "@trove/blobs";
import type { Bus } from "@trove/bus";
import { newId, nextTurn, nowSeconds } from "@trove/db";
import { callerHeaders } from "@trove/host";
import type { JobContext, QueueSet } from "@trove/jobs";
import { pageRequest, type ExportFormat } from "./exports.service.ts";
import type { ExportParams } from "./job-view.ts";
import type { JobsRepository } from "./jobs.repository.ts";
import { queueNames, type JobPayload } from "./queue-names.ts";

/** Records asked for per page; the items service also cuts a page at a byte budget of content. */
const pageRecords = 200;

export class ExportRunner {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly queue: QueueSet,
    private readonly bus: Bus,
    private readonly blobs: BlobStore,
    private readonly opts: { requestTimeoutMs: number; retentionHours: number },
  ) {}

  /** One run of the job; a run after an interrupted one starts over. Ends the queue's job as it completes. */
  async run(ctx: JobContext<JobPayload>): Promise<void> {
    const job = await this.jobs.byId(ctx.job.payload.jobId);
    if (!job || job.status === "completed" || job.status === "failed") return;
    const params = job.params as unknown as ExportParams;
    // A resumed job starts over, counters included.
    await ctx.write((uow) => this.jobs.on(uow).start(job.id, nowSeconds(), true));
    // One key per run: a replica that lost the job (too slow to renew its lease) and cleans up after itself never
    // removes the file of the replica that took the job over.
    const key = `export-${job.id}-${ctx.job.attempt}-${newId().slice(-12)}`;
    // Imported here: the writers (archiver, yaml) load on the first export, not in every process that starts.
    const { exportWriter } = await import("@trove/portability/export/formats.ts");
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
        ctx.signal.throwIfAborted();
        const request: ExportPageRequest = { ...pageRequest(params), limit: pageRecords, ...(after ? { after } : {}) };
        const page = (await this.bus.request(exportPageSubject, request, { timeoutMs: this.opts.requestTimeoutMs, headers: callerHeaders(job.caller) })) as ExportPageReply;
        await writer.write(page.records);
        count += page.records.length;
        await ctx.write((uow) => this.jobs.on(uow).setExportProgress(job.id, count));
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
    const expiresAt = now + this.opts.retentionHours * 3600;
    try {
      // Completed, and its file's deletion due at its expiry, in one step with the queue's job; refused (LeaseLost)
      // when another replica took the job over meanwhile: its own run writes the file.
      await ctx.complete(async (uow) => {
        await this.jobs.on(uow).completeExport(job.id, { blob: key, itemCount: count, sizeBytes: size, now, expiresAt });
        await this.queue.enqueue(uow, queueNames.expiry, { jobId: job.id } satisfies JobPayload, { runAt: expiresAt * 1000, accountId: job.account_id });
      });
    } catch (err) {
      await this.blobs.delete(key).catch(() => {});
      throw err;
    }
  }
}

/** The writer's bytes as they pass to the store, counted. */
async function* counted(source: ByteSource, add: (n: number) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    add(chunk.byteLength);
    yield chunk;
  }
}
