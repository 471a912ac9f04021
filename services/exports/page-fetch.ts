// Fetches the page of one imported entry that came without content: the items service's capture of the item (SSRF
// guard, limits, extraction deadline), as the key that started the import. The capture's own outcome (stored, the
// page's 404, a refusal, the item deleted) ends the fetch; a fault of ours on the way (the items service away or
// failing, a timeout) is thrown, so the queue tries the fetch again later, and records it failed only after its
// last try.
import { captureItemSubject, type CaptureItemReply } from "@trove/contracts";
import type { Bus } from "@trove/bus";
import type { UnitOfWork } from "@trove/db";
import { AppError } from "@trove/errors";
import { callerHeaders } from "@trove/host";
import type { JobContext } from "@trove/jobs";
import type { FetchesRepository } from "./fetches.repository.ts";
import type { JobsRepository } from "./jobs.repository.ts";
import type { PageFetchPayload } from "./queue-names.ts";

export class PageFetcher {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly fetches: FetchesRepository,
    private readonly bus: Bus,
    private readonly opts: { requestTimeoutMs: number },
  ) {}

  async run(p: PageFetchPayload, ctx: JobContext<PageFetchPayload>): Promise<void> {
    const job = await this.jobs.byId(p.jobId);
    // The import is gone: nothing is left to record the fetch on.
    if (!job) return;
    let ok: boolean;
    let reason: string | null;
    try {
      const reply = (await this.bus.request(captureItemSubject, { itemId: p.itemId }, {
        timeoutMs: Math.max(this.opts.requestTimeoutMs, 60_000),
        headers: callerHeaders(job.caller),
      })) as CaptureItemReply;
      ok = reply.outcome === "stored";
      reason = reply.outcome === "gone" ? "the item was deleted" : (reply.reason ?? null);
    } catch (err) {
      // A 4xx is the items service's answer about this item (not found, not allowed): final. Anything else is not.
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      ok = false;
      reason = err.message;
    }
    await ctx.complete((uow) => this.fetches.on(uow).finish(p.jobId, p.itemId, ok, reason));
  }

  /** The last try failed too: the fetch is recorded failed with the reason. */
  async failed(uow: UnitOfWork, p: PageFetchPayload, reason: string): Promise<void> {
    await this.fetches.on(uow).finish(p.jobId, p.itemId, false, reason);
  }
}
