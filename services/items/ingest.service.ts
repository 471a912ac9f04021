// Saving a page: normalise and dedupe the URL, refuse what may not be fetched, fetch (SSRF-guarded) or take the
// browser's HTML, extract, and store it all in one transaction with the plan count. A capture that outlasts the
// foreground budget becomes a job of the capture queue in the save's own transaction, so it outlives this process.
// A scoped key saves into its scope and never over an item outside it.
import { isScoped, type Caller } from "@trove/contracts";
import { newId, nowSeconds, type UnitOfWork } from "@trove/db";
import type { Claim } from "@trove/jobs";
import { refusal, type Capture, type ContentCapture } from "./capture.ts";
import type { CaptureJobs, CapturePayload } from "./capture-job.ts";
import { itemEvent, scopeOf } from "./events.ts";
import type { ItemEvents } from "./item-events.ts";
import type { ItemRow, ItemsRepository } from "./items.repository.ts";
import { outsideScope } from "./key-scope.ts";
import { placeInScope } from "./scope-placement.ts";
import type { TagsService } from "./tags.service.ts";
import { normalizeUrl, parseSaveUrl, urlHash } from "./url.ts";
import type { UsageService } from "./usage.service.ts";

export interface IngestOptions {
  /** How long the request waits for fetch + extraction before answering `background: true`. */
  waitMs: number;
}

/** One save: the normalised URL and what the item starts with. */
interface Save {
  url: string;
  hash: string;
  title: string;
  source: string | null;
}

/** A save's item: `countedAt` is when its insert was counted toward the plan (what a withdrawal gives back). */
interface Saved {
  id: string;
  inserted: boolean;
  countedAt: number;
}

/** Thrown inside the save's transaction when the plan is full, so that the insert rolls back with it. */
class PlanFull extends Error {}

const hasContent = (r: ItemRow) => r.content_extracted_at !== null && r.content_extract_error === null;

export class IngestService {
  constructor(
    private readonly repo: ItemsRepository,
    private readonly usage: UsageService,
    private readonly captures: ContentCapture,
    private readonly later: CaptureJobs,
    private readonly tags: TagsService,
    private readonly events: ItemEvents,
    private readonly opts: IngestOptions,
  ) {}

  async ingest(caller: Caller, input: { url: string; source?: string; html?: string }) {
    const url = parseSaveUrl(input.url);
    const normalized = normalizeUrl(url);
    const save: Save = { url: normalized, hash: urlHash(normalized), title: url.hostname, source: input.source ?? null };
    const existing = await this.repo.findByHash(caller.accountId, save.hash);
    // Before anything else: no fetch, no count, and an answer that names nothing of the item (checked again where
    // the save is stored, for an item saved meanwhile).
    if (existing && isScoped(caller) && !(await this.repo.getById(caller.accountId, existing.id, { scope: caller.scope }))) throw outsideScope();
    // Refused early, before any fetch; the count is checked again, atomically, where the item is inserted.
    if (!existing) await this.usage.ensureRoom(caller);

    // Already captured and no new HTML: count the save, keep the content.
    if (existing && hasContent(existing) && input.html === undefined) {
      const saved = await this.save(caller, save, null);
      return { ok: true, id: saved.id, url: normalized, extracted: true, sync: await this.usage.sync(caller, false) };
    }

    // A URL whose host Trove may not reach is refused before anything is saved, however slow its capture.
    if (input.html === undefined) await this.captures.refuseBlocked(normalized);
    const captureId = newId();
    const job = (saved: Saved): CapturePayload => ({
      itemId: saved.id,
      url: normalized,
      captureId,
      ...(input.html !== undefined ? { html: input.html } : {}),
      inserted: saved.inserted,
      countedAt: saved.countedAt,
    });
    const background = async (saved: Saved) => ({
      ok: true,
      id: saved.id,
      url: normalized,
      extracted: false,
      background: true,
      sync: await this.usage.sync(caller, saved.inserted),
    });
    if (this.opts.waitMs <= 0) {
      // No race: the save is stored with its capture queued, and a worker captures it.
      return background(await this.save(caller, save, null, (uow, saved) => this.later.enqueue(uow, caller.accountId, job(saved))));
    }
    const stop = new AbortController();
    const work = this.captures.capture(normalized, input.html, stop.signal);
    const first = await this.within(work, this.opts.waitMs);
    if (first) {
      if (!first.ok && first.refused) throw refusal(first.error);
      const saved = await this.save(caller, save, { capture: first, captureId });
      const base = { ok: true, id: saved.id, url: normalized, extracted: first.ok, sync: await this.usage.sync(caller, saved.inserted) };
      return first.ok ? base : { ...base, extractError: first.error };
    }
    // Slow page: the save holds the capture's job, claimed by this process; the capture under way is handed to it.
    let claim: Claim<CapturePayload> | undefined;
    let saved: Saved;
    try {
      saved = await this.save(caller, save, null, async (uow, s) => void (claim = await this.later.claim(uow, caller.accountId, job(s))));
    } catch (err) {
      stop.abort();
      throw err;
    }
    const held = claim!;
    // A stop or a lost lease ends the fetch: the job's next holder fetches again.
    held.signal.addEventListener("abort", () => stop.abort(), { once: true });
    held.adopt(work.then((capture) => this.later.finish(held, capture)));
    return background(saved);
  }

  /** The capture if it ends within `ms`, else undefined. The timer is cleared when the capture wins, so a long wait holds nothing after. */
  private async within(work: Promise<Capture>, ms: number): Promise<Capture | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)));
    try {
      return await Promise.race([work, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * One transaction: the item inserted and counted toward the plan (item.created), or one more save of it
   * recorded (item.updated), plus the capture's content when there is one. All or nothing: a save refused by the
   * plan, or whose content cannot be stored, leaves no item and no count behind. A scoped caller's new item joins
   * its scope; an item outside the scope (saved meanwhile) is left exactly as it was. `queue` adds the capture's
   * job to the same unit of work.
   */
  private async save(
    caller: Caller,
    s: Save,
    stored: { capture: Capture; captureId: string } | null,
    queue?: (uow: UnitOfWork, saved: Saved) => Promise<void>,
  ): Promise<Saved> {
    const now = nowSeconds();
    try {
      return await this.repo.transaction(async (tx, uow) => {
        const saved = await tx.upsert(caller.accountId, { id: newId(), url: s.url, urlHash: s.hash, title: s.title, source: s.source, now });
        if (saved.inserted) {
          if (!(await this.usage.countNew(tx, caller, now))) throw new PlanFull();
          const placed = await placeInScope(tx, this.tags, caller, saved.id, now);
          if (placed.tagSlugs.length > 0 || placed.collectionIds.length > 0) await tx.refreshLists(caller.accountId, [saved.id]);
          await this.events.record(uow, caller.accountId, [itemEvent("item.created", saved.id, null, { status: "stashed", ...placed }, { changedFields: [] })]);
        } else {
          // The upsert counted this save: throwing rolls that back too.
          const row = await tx.getById(caller.accountId, saved.id, { scope: caller.scope });
          if (!row) throw outsideScope();
          const scope = scopeOf(row);
          await this.events.record(uow, caller.accountId, [itemEvent("item.updated", saved.id, scope, scope, { changedFields: ["timesAdded", "lastSeenAt"] })]);
        }
        if (stored) await this.captures.storeIn(tx, uow, caller.accountId, saved.id, stored.capture, stored.captureId, { announce: !saved.inserted });
        const result = { ...saved, countedAt: now };
        await queue?.(uow, result);
        return result;
      });
    } catch (err) {
      if (err instanceof PlanFull) throw await this.usage.quotaError(caller);
      throw err;
    }
  }
}
