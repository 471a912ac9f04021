// Fetches the pages of imported entries that came without content, in the background and politely: at most one
// request in flight per host and `gapMs` between two (FetchesRepository enforces both across replicas), a few
// hosts at a time. Each fetch is the items service's capture of the item (SSRF guard, limits, extraction deadline).
import { captureItemSubject, type CaptureItemReply, type Caller } from "@trove/contracts";
import type { Bus } from "@trove/bus";
import { AppError } from "@trove/errors";
import { callerHeaders } from "@trove/host";
import type { Logger } from "@trove/log";
import type { FetchClaim, FetchesRepository } from "./fetches.repository.ts";

/** Fetches one replica runs at once (each on a different host). */
const concurrentFetches = 4;
/** How long a claimed fetch blocks its host at most (the capture's own deadlines are shorter). */
const fetchLeaseMs = 120_000;

export class Fetcher {
  private active = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private filling = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly repo: FetchesRepository,
    private readonly bus: Bus,
    private readonly opts: { gapMs: number; tickMs: number; requestTimeoutMs: number },
    private readonly log: Logger,
  ) {}

  start(): void {
    this.poke();
  }

  /** Looks for fetches that may start now. */
  poke = (): void => {
    if (this.stopped || this.filling) return;
    void this.fill();
  };

  private async fill(): Promise<void> {
    this.filling = true;
    clearTimeout(this.timer);
    try {
      while (!this.stopped && this.active < concurrentFetches) {
        const claim = await this.repo.claim(Date.now(), fetchLeaseMs);
        if (!claim) break;
        this.launch(claim);
      }
      // Sleep until the soonest host is free again (or the tick, for work another replica queued).
      const due = this.active < concurrentFetches ? await this.repo.nextDue() : undefined;
      const wait = due === undefined ? this.opts.tickMs : Math.min(this.opts.tickMs, Math.max(10, due - Date.now()));
      if (!this.stopped) this.timer = setTimeout(this.poke, wait);
    } catch (err) {
      this.log.error({ err }, "background fetch scheduling failed");
      if (!this.stopped) this.timer = setTimeout(this.poke, this.opts.tickMs);
    } finally {
      this.filling = false;
    }
  }

  private launch(claim: FetchClaim): void {
    this.active++;
    const run = this.fetch(claim).finally(() => {
      this.active--;
      this.inFlight.delete(run);
      this.poke();
    });
    this.inFlight.add(run);
  }

  private async fetch(claim: FetchClaim): Promise<void> {
    let ok = false;
    let reason: string | null = null;
    try {
      const reply = (await this.bus.request(captureItemSubject, { itemId: claim.itemId }, {
        timeoutMs: Math.max(this.opts.requestTimeoutMs, 60_000),
        headers: callerHeaders(claim.caller as Caller),
      })) as CaptureItemReply;
      ok = reply.outcome === "stored";
      reason = reply.outcome === "gone" ? "the item was deleted" : (reply.reason ?? null);
    } catch (err) {
      reason = err instanceof AppError ? err.message : "fetch failed";
      if (!(err instanceof AppError)) this.log.error({ err, itemId: claim.itemId }, "background fetch failed");
    }
    await this.repo.finish(claim, ok, reason, Date.now(), this.opts.gapMs).catch((err) => this.log.error({ err }, "could not record a fetch"));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.race([Promise.allSettled([...this.inFlight]), Bun.sleep(5_000)]);
  }
}
