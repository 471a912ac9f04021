// Saving a page: normalise and dedupe the URL, refuse what may not be fetched, fetch (SSRF-guarded) or take the
// browser's HTML, extract, and store it all in one transaction with the plan count. Work that outlasts the
// foreground budget finishes in the background. A scoped key saves into its scope and never over an item outside it.
import { isScoped, type Caller } from "@trove/contracts";
import { newId, nowSeconds } from "@trove/db";
import type { Logger } from "@trove/log";
import { keptContent, refusal, type Capture, type ContentCapture } from "./capture.ts";
import { itemEvent, scopeOf } from "./events.ts";
import type { ItemEvents } from "./item-events.ts";
import type { ItemRow, ItemsRepository } from "./items.repository.ts";
import { outsideScope } from "./key-scope.ts";
import type { MediaService } from "./media.service.ts";
import { removeItems } from "./removal.ts";
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
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly repo: ItemsRepository,
    private readonly usage: UsageService,
    private readonly captures: ContentCapture,
    private readonly media: MediaService,
    private readonly tags: TagsService,
    private readonly events: ItemEvents,
    private readonly opts: IngestOptions,
    private readonly log: Logger,
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
    const work = this.captures.capture(normalized, input.html);
    const first = await this.within(work, this.opts.waitMs);
    if (first && !first.ok && first.refused) throw refusal(first.error);
    const saved = await this.save(caller, save, first ? { capture: first, captureId } : null);
    if (first) {
      const base = { ok: true, id: saved.id, url: normalized, extracted: first.ok, sync: await this.usage.sync(caller, saved.inserted) };
      return first.ok ? base : { ...base, extractError: first.error };
    }
    // Slow page: answer now, finish in the background.
    this.finishLater(caller, saved, work, captureId);
    return { ok: true, id: saved.id, url: normalized, extracted: false, background: true, sync: await this.usage.sync(caller, saved.inserted) };
  }

  /**
   * The capture if it ends within `ms`, else undefined. A wait of 0 is no race: the save goes to the background
   * whatever the machine's speed. The timer is cleared when the capture wins, so a long wait holds nothing after.
   */
  private async within(work: Promise<Capture>, ms: number): Promise<Capture | undefined> {
    if (ms <= 0) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)));
    try {
      return await Promise.race([work, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for background captures (graceful stop), at most `ms`. */
  async drain(ms = 25_000): Promise<void> {
    await Promise.race([Promise.allSettled([...this.pending]), Bun.sleep(ms)]);
  }

  /**
   * One transaction: the item inserted and counted toward the plan (item.created), or one more save of it
   * recorded (item.updated), plus the capture's content when there is one. All or nothing: a save refused by the
   * plan, or whose content cannot be stored, leaves no item and no count behind. A scoped caller's new item joins
   * its scope; an item outside the scope (saved meanwhile) is left exactly as it was.
   */
  private async save(caller: Caller, s: Save, stored: { capture: Capture; captureId: string } | null) {
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
        return { ...saved, countedAt: now };
      });
    } catch (err) {
      if (err instanceof PlanFull) throw await this.usage.quotaError(caller);
      throw err;
    }
  }

  private finishLater(caller: Caller, saved: Saved, work: Promise<Capture>, captureId: string) {
    const job = work
      .then(async (capture) => {
        let outcome: string;
        if (!capture.ok && capture.refused) outcome = await this.withdraw(caller.accountId, saved, capture.error);
        else {
          const stored = await this.repo.transaction((tx, uow) => this.captures.storeIn(tx, uow, caller.accountId, saved.id, capture, captureId, { announce: true }));
          outcome = !stored ? "superseded" : capture.ok ? "stored" : "failed";
        }
        this.log.info({ itemId: saved.id, outcome }, "background capture finished");
      })
      .catch((err) => this.log.error({ err, itemId: saved.id }, "background capture failed"));
    this.pending.add(job);
    void job.finally(() => this.pending.delete(job));
  }

  /**
   * A refusal found only after the answer (a redirect to a blocked address): the save that added the item takes
   * it back, count included, unless content arrived meanwhile (a browser save); an older item records the error.
   */
  private async withdraw(accountId: string, saved: Saved, message: string): Promise<string> {
    let outcome = "refused";
    const blobKeys = await this.repo.transaction(async (tx, uow) => {
      const row = await tx.getById(accountId, saved.id, { content: true, lock: true });
      if (!row) return [];
      if (saved.inserted && row.content_capture_id === null) {
        const removed = await removeItems(tx, uow, this.events, accountId, [row]);
        await this.usage.giveBack(tx, accountId, saved.countedAt);
        outcome = "withdrawn";
        return removed.blobKeys;
      }
      await tx.setContent(accountId, row.id, { ...keptContent(row), contentExtractError: `url_not_allowed: ${message}`, now: nowSeconds() });
      const scope = scopeOf(row);
      await this.events.record(uow, accountId, [itemEvent("item.updated", row.id, scope, scope, { changedFields: ["contentExtractError"] })]);
      return [];
    });
    await this.media.dropBlobs(blobKeys);
    return outcome;
  }
}
