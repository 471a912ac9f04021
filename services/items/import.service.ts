// items.internal.importEntries: saves a batch of entries an import file carried, as the caller, one result per
// entry in order. A new URL becomes an item with its original time, status, tags, collections, note and
// highlights, counted toward the plan now; a URL already saved gets what the entry adds, nothing replaced.
// Carried content is extracted before any transaction (worker pool); each entry is then its own transaction, so
// a batch stopped by the plan keeps what it saved before the limit.
import type { Caller, ImportEntriesReply, ImportOutcome } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { newId, nextTurn, nowSeconds, type UnitOfWork } from "@trove/db";
import type { Capture, ContentCapture } from "./capture.ts";
import type { CollectionsService } from "./collections.service.ts";
import { changeEvents, itemEvent, scopeOf } from "./events.ts";
import type { HighlightsService } from "./highlights.service.ts";
import { cleanEntry, type CleanEntry } from "./import-entry.ts";
import type { ItemEvents } from "./item-events.ts";
import type { ItemsRepository } from "./items.repository.ts";
import type { TagsService } from "./tags.service.ts";
import type { UsageService } from "./usage.service.ts";

/** Entries one request may carry. */
export const maxImportBatch = 200;
/** Carried contents extracted at once: the pool's other users (saves) keep room. */
const extractConcurrency = 4;
/**
 * No extraction starts after this long into a batch (each has the pool's own deadline), so a batch of slow pages
 * still answers in bounded time: the entries left are saved without content and fetched later (needsFetch).
 */
export const importExtractBudgetMs = 20_000;

/** An entry whose item was deleted between the batch's look-up and its transaction (a concurrent delete). */
const gone: ImportOutcome = { outcome: "failed", reason: "the item was deleted while importing" };

/** Thrown inside an entry's transaction when the plan is full, so that its insert rolls back. */
class PlanFull extends Error {}

export class ImportService {
  constructor(
    private readonly repo: ItemsRepository,
    private readonly usage: UsageService,
    private readonly tags: TagsService,
    private readonly collections: CollectionsService,
    private readonly highlights: HighlightsService,
    private readonly captures: ContentCapture,
    private readonly events: ItemEvents,
  ) {}

  async importEntries(caller: Caller, payload: unknown): Promise<ImportEntriesReply> {
    // The exports service checks the key's permission; an import writes the whole account, so only a full key may.
    if (caller.access !== "read_write" || caller.scope) throw new AppError("forbidden", "importing needs a read-write key without a scope");
    const raw = checked(payload);
    const now = nowSeconds();
    const entries = raw.map((e) => cleanEntry(e, now));
    const clean = entries.filter((e): e is CleanEntry => !("failed" in e));
    const present = await this.repo.idsByHash(caller.accountId, [...new Set(clean.map((e) => e.hash))]);

    // Only the first entry of a URL not saved yet becomes an item: only its content is extracted.
    const seen = new Set<string>();
    const firsts = clean.filter((e) => !present.has(e.hash) && !seen.has(e.hash) && seen.add(e.hash));
    const captured = await this.extractAll(firsts.filter((e) => e.content !== undefined));

    const results: ImportOutcome[] = [];
    let full = false;
    for (const entry of entries) {
      // Each entry is a few statements: requests waiting meanwhile go first (see nextTurn).
      await nextTurn();
      if (full) results.push({ outcome: "quota" });
      else if ("failed" in entry) results.push({ outcome: "failed", reason: entry.failed });
      else {
        try {
          const result = await this.saveOne(caller, entry, present.get(entry.hash), captured.get(entry));
          if (result.outcome === "created") present.set(entry.hash, result.id);
          results.push(result);
        } catch (err) {
          if (!(err instanceof PlanFull)) throw err;
          full = true;
          results.push({ outcome: "quota" });
        }
      }
    }
    return { results };
  }

  /** Extracts carried contents, a few at a time, within the batch's budget. */
  private async extractAll(entries: CleanEntry[]): Promise<Map<CleanEntry, Capture>> {
    const out = new Map<CleanEntry, Capture>();
    const until = Date.now() + importExtractBudgetMs;
    let next = 0;
    const worker = async () => {
      while (next < entries.length && Date.now() < until) {
        const e = entries[next++]!;
        out.set(e, await this.captures.provided(e.url, e.content!));
      }
    };
    await Promise.all(Array.from({ length: Math.min(extractConcurrency, entries.length) }, worker));
    return out;
  }

  private async saveOne(caller: Caller, e: CleanEntry, known: string | undefined, capture: Capture | undefined): Promise<ImportOutcome> {
    const accountId = caller.accountId;
    const now = nowSeconds();
    return this.repo.transaction(async (tx, uow) => {
      // Known from the batch's look-up; deleted since, it is saved anew.
      const merged = known === undefined ? null : await this.mergeIn(tx, uow, accountId, known, e, now);
      if (merged) return merged;
      const id = newId();
      const inserted = await tx.insertImported(accountId, {
        id,
        url: e.url,
        urlHash: e.hash,
        title: e.title ?? e.hostname,
        status: e.status,
        notes: e.note,
        source: e.source,
        createdAt: e.createdAt ?? now,
        processedAt: e.processedAt,
        now,
      });
      if (!inserted) {
        // Saved meanwhile (a parallel import or save of the same URL): merged into that item.
        const winner = await tx.findByHash(accountId, e.hash);
        return (winner && (await this.mergeIn(tx, uow, accountId, winner.id, e, now))) ?? gone;
      }
      // Counted now, in this period, whatever the item's original time.
      if (!(await this.usage.countNew(tx, caller, now))) throw new PlanFull();
      const tagSlugs = await this.tags.addItemTags(tx, accountId, id, [], e.tags, now);
      const collectionIds = await this.collections.addItemCollections(tx, accountId, id, [], e.collections, now);
      let markdown = "";
      if (capture?.ok && (await this.captures.storeIn(tx, uow, accountId, id, capture, newId(), { announce: false, keepTitle: e.title !== undefined }))) {
        markdown = capture.extraction.markdown;
      }
      if (e.highlights.length > 0) await this.highlights.addIn(tx, accountId, id, markdown, e.highlights, now);
      // A bare bookmark has nothing to list: its row's empty lists are already right (one round trip less).
      if (tagSlugs.length > 0 || collectionIds.length > 0 || e.highlights.length > 0) await tx.refreshLists(accountId, [id]);
      await this.events.record(uow, accountId, [itemEvent("item.created", id, null, { status: e.status, tagSlugs, collectionIds }, { changedFields: [] })]);
      return { outcome: "created", id, needsFetch: markdown === "" };
    });
  }

  /**
   * Adds what the entry has and the item lacks: tags, collections, highlights whose text it does not have, the
   * note when it has none. Status, title, times and content stay. Events as an update's (none when nothing changed).
   * Null when the item is gone.
   */
  private async mergeIn(tx: ItemsRepository, uow: UnitOfWork, accountId: string, id: string, e: CleanEntry, now: number): Promise<ImportOutcome | null> {
    const row = await tx.getById(accountId, id, { content: e.highlights.length > 0, lock: true });
    if (!row) return null;
    const before = scopeOf(row);
    const changed: string[] = [];
    const tagSlugs = await this.tags.addItemTags(tx, accountId, id, before.tagSlugs, e.tags, now);
    const collectionIds = await this.collections.addItemCollections(tx, accountId, id, before.collectionIds, e.collections, now);
    const set: Parameters<ItemsRepository["updateFields"]>[2] = {};
    if (e.note !== "" && row.notes === "") (set.notes = e.note), changed.push("notes");
    if (e.highlights.length > 0) {
      const have = await this.highlights.textsOf(tx, accountId, id);
      const added = e.highlights.filter((h) => !have.has(h.text) && have.add(h.text));
      if (added.length > 0) {
        await this.highlights.addIn(tx, accountId, id, row.content_markdown ?? "", added, now);
        changed.push("highlights");
      }
    }
    const after = { ...before, tagSlugs, collectionIds };
    const events = changeEvents(id, before, after, changed);
    if (events.length > 0) {
      await tx.updateFields(accountId, id, { ...set, updated_at: now });
      await tx.refreshLists(accountId, [id]);
      await this.events.record(uow, accountId, events);
    }
    return { outcome: "present", id };
  }
}

/** The batch as sent over the bus: checked, since it carries plain JSON. */
function checked(payload: unknown): unknown[] {
  const entries = (payload as { entries?: unknown } | null)?.entries;
  const fail = (why: string) => new AppError("validation_failed", `importEntries: entries ${why}`, { fields: { entries: why } });
  if (!Array.isArray(entries)) throw fail("must be a list");
  if (entries.length > maxImportBatch) throw fail(`holds at most ${maxImportBatch} entries`);
  return entries;
}
