// One run of a feed-backed source (rss, youtube_channel, x_articles through a bridge): read the feed (conditional
// GET), parse it in a worker, choose the entries to add (the first run by the backfill settings, later runs every
// unseen one), and add each as an item through the items service, oldest first so the newest is listed on top.
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { escapeHtml, feedParseTaskName, type Feed, type FeedEntry } from "@trove/feeds";
import { uniqueTags, withSummary, type PreparedEntry } from "@trove/intake";
import type { Logger } from "@trove/log";
import { TaskFailedError, WorkerTimeoutError, type WorkerPool } from "@trove/workers";
import type { EntriesRepository } from "./entries.repository.ts";
import { fetchFeed, RunFailure, type FetchDeps, type Validators } from "./feed-fetch.ts";
import type { ItemWriter } from "./item-writer.ts";
import type { PooledReading } from "./pooled-reading.ts";
import { digestOf } from "./rollup.ts";
import { addFailureText } from "./run-errors.ts";
import type { SourceRow } from "./sources.repository.ts";

export interface PollResult {
  itemsAdded: number;
  entriesSeen: number;
  notModified: boolean;
  /** Entries the items service refused (a bad link): seen, not retried. */
  skipped: number;
  cursors: Record<string, unknown>;
  feedTitle: string | null;
  /** Set when the run stopped part way (quota, items service unavailable): the rest are tried next run. */
  stoppedBy?: string;
}

export interface FeedPollerDeps {
  fetch: FetchDeps;
  workers: WorkerPool;
  /** Tags, summaries and excerpts of new entries, read in a worker. */
  reading: PooledReading;
  entries: EntriesRepository;
  writer: ItemWriter;
  /** Host of the stable addresses given to entries without a link. */
  inboxDomain: string;
  log: Logger;
}

/** How long parsing one feed may take in its worker. */
export const feedParseDeadlineMs = 10_000;

/** Item errors that concern the entry only (its link): the entry is skipped; any other error stops the run. */
const entryRefusals = new Set(["validation_failed", "url_not_allowed"]);

export class FeedPoller {
  constructor(private readonly deps: FeedPollerDeps) {}

  async poll(source: SourceRow, feedUrl: string, now: number): Promise<PollResult> {
    const before = source.cursors;
    const fetched = await fetchFeed(feedUrl, this.deps.fetch, validatorsOf(before));
    if (fetched.notModified) return { itemsAdded: 0, entriesSeen: 0, notModified: true, skipped: 0, cursors: before, feedTitle: null };
    const feed = await this.parse(fetched.text);
    const entries = uniqueByKey(feed.entries);
    const first = before.initialized !== true;
    const seen = await this.deps.entries.seen(source.id, entries.map((e) => e.key));
    const unseen = entries.filter((e) => !seen.has(e.key));
    const toAdd = first ? backfill(newestFirst(unseen), source.config, now) : unseen;
    if (first) {
      const chosen = new Set(toAdd.map((e) => e.key));
      await this.deps.entries.markSeen(source.id, unseen.filter((e) => !chosen.has(e.key)).map((e) => e.key), now);
    }
    // The first run names the source after its feed (unless the user named it): its items carry that name.
    const name = source.cursors.nameFromFeed === true && feed.title ? feed.title.slice(0, 200) : source.name;
    const added = await this.addAll({ ...source, name }, oldestFirst(toAdd), now);
    // A run that stopped keeps the old validators: the next poll must read the feed again for what is left.
    const cursors = { ...before, ...(added.stoppedBy ? {} : fetched.validators), initialized: true, nameFromFeed: undefined };
    return { ...added, entriesSeen: entries.length, notModified: false, cursors, feedTitle: feed.title || null };
  }

  private async parse(text: string): Promise<Feed> {
    try {
      return await this.deps.workers.run<Feed>(feedParseTaskName, { text }, { deadlineMs: feedParseDeadlineMs });
    } catch (err) {
      // The parser's own words may quote the document; what is shown says only that it is no feed.
      if (err instanceof TaskFailedError) {
        throw new RunFailure(err.errorName === "FeedParseError" ? "not a readable RSS, Atom, RDF or JSON feed" : "the feed could not be parsed", err.message);
      }
      if (err instanceof WorkerTimeoutError) throw new RunFailure(`parsing the feed took longer than ${feedParseDeadlineMs / 1000} s`);
      throw err;
    }
  }

  private async addAll(source: SourceRow, entries: FeedEntry[], now: number): Promise<AddResult> {
    let itemsAdded = 0;
    let skipped = 0;
    if (entries.length === 0) return { itemsAdded, skipped };
    const prepared = await this.prepare(source, entries);
    const caller = await this.deps.writer.callerFor(source.account_id);
    if (source.settings.rollupEnabled) return this.addDigest(caller, source, entries, prepared, now);
    for (const [i, entry] of entries.entries()) {
      if (!(await this.deps.entries.claim(source.id, entry.key, now))) continue;
      const { tags, summary } = prepared[i]!;
      try {
        const item = await this.deps.writer.add(caller, {
          url: entry.url ?? this.addressOf(source.id, entry.key),
          html: this.contentOf(source, entry, summary),
          title: entry.title,
          tags,
          source: source.name,
        });
        await this.deps.entries.setItem(source.id, entry.key, item.id);
        if (item.added) itemsAdded++;
      } catch (err) {
        if (err instanceof AppError && entryRefusals.has(err.code)) {
          skipped++;
          this.deps.log.info({ sourceId: source.id, entry: entry.key, code: err.code }, "entry skipped");
          continue;
        }
        await this.deps.entries.release(source.id, entry.key);
        return { itemsAdded, skipped, stoppedBy: stoppedBy(err, entries.length - i) };
      }
    }
    return { itemsAdded, skipped };
  }

  /**
   * Each entry's tags and summary (for a digest: its summary or excerpt), read in a worker: the rules and the
   * summary read the entries' HTML. Without rules or summaries there is nothing to read.
   */
  private prepare(source: SourceRow, entries: FeedEntry[]): Promise<PreparedEntry[]> {
    const { defaultTags, smartTagRules, autoSummarize, rollupEnabled } = source.settings;
    if (smartTagRules.length === 0 && !autoSummarize && !rollupEnabled) {
      return Promise.resolve(entries.map(() => ({ tags: uniqueTags(defaultTags), summary: null, excerpt: null })));
    }
    return this.deps.reading.entries({
      entries: entries.map((e) => ({
        title: e.title,
        url: e.url,
        author: e.author,
        html: e.html,
        // Only content the item keeps is summarised (see contentOf); a digest summarises every entry.
        summarize: rollupEnabled || (autoSummarize && this.keepsContent(source, e)),
      })),
      settings: { defaultTags, smartTagRules },
      excerpts: rollupEnabled,
    });
  }

  /** Rollup: the unseen entries become one digest item; each is still marked seen (with the digest as its item). */
  private async addDigest(caller: Caller, source: SourceRow, entries: FeedEntry[], prepared: PreparedEntry[], now: number): Promise<AddResult> {
    const claimed: { entry: FeedEntry; prepared: PreparedEntry }[] = [];
    for (const [i, e] of entries.entries()) if (await this.deps.entries.claim(source.id, e.key, now)) claimed.push({ entry: e, prepared: prepared[i]! });
    if (claimed.length === 0) return { itemsAdded: 0, skipped: 0 };
    try {
      const item = await this.deps.writer.add(caller, digestOf(source, claimed, now, this.deps.inboxDomain));
      for (const { entry } of claimed) await this.deps.entries.setItem(source.id, entry.key, item.id);
      return { itemsAdded: item.added ? 1 : 0, skipped: 0 };
    } catch (err) {
      for (const { entry } of claimed) await this.deps.entries.release(source.id, entry.key);
      return { itemsAdded: 0, skipped: 0, stoppedBy: stoppedBy(err, claimed.length) };
    }
  }

  /**
   * What the item keeps: the entry's content (a video's thumbnail shown above its description); none when
   * expandFullContent asks for the linked page, or when the entry has no content but a link (the page is fetched).
   */
  private contentOf(source: SourceRow, entry: FeedEntry, summary: string | null): string | undefined {
    if (!this.keepsContent(source, entry)) return undefined;
    const image = source.type === "youtube_channel" && entry.imageUrl ? `<p><img src="${escapeHtml(entry.imageUrl)}" alt=""></p>` : "";
    const text = entry.html.trim() === "" ? `<p>${escapeHtml(entry.title || "(untitled)")}</p>` : entry.html;
    return `<html><head><title>${escapeHtml(entry.title)}</title></head><body>${image}${withSummary(text, summary)}</body></html>`;
  }

  private keepsContent(source: SourceRow, entry: FeedEntry): boolean {
    return !(entry.url && (source.settings.expandFullContent || entry.html.trim() === ""));
  }

  /** A stable address for an entry without a link: the same entry always gets the same one. */
  private addressOf(sourceId: string, key: string): string {
    const digest = new Bun.CryptoHasher("sha256").update(key).digest("hex").slice(0, 32);
    return `https://${this.deps.inboxDomain}/sources/${sourceId}/entries/${digest}`;
  }
}

interface AddResult {
  itemsAdded: number;
  skipped: number;
  stoppedBy?: string;
}

/** Why a run stopped part way, and how many entries wait for the next run. */
function stoppedBy(err: unknown, left: number): string {
  const text = addFailureText(err);
  const why = err instanceof AppError && err.code === "quota_reached" ? text : `adding items failed (${text})`;
  return `${why}; ${left} entr${left === 1 ? "y is" : "ies are"} tried again next run`;
}

function validatorsOf(cursors: Record<string, unknown>): Validators {
  return {
    ...(typeof cursors.etag === "string" ? { etag: cursors.etag } : {}),
    ...(typeof cursors.lastModified === "string" ? { lastModified: cursors.lastModified } : {}),
  };
}

function uniqueByKey(entries: FeedEntry[]): FeedEntry[] {
  const keys = new Set<string>();
  return entries.filter((e) => !keys.has(e.key) && keys.add(e.key));
}

/** Newest first: by date when every entry has one, else in feed order (feeds list the newest first). */
function newestFirst(entries: FeedEntry[]): FeedEntry[] {
  if (!entries.every((e) => e.publishedAt !== null)) return entries;
  return [...entries].sort((a, b) => b.publishedAt! - a.publishedAt!);
}

const oldestFirst = (entries: FeedEntry[]) => newestFirst(entries).reverse();

/** The first run's entries (newest first): none (from_now), those of the last backfillDays, or the newest backfillItems; at most initialImportCount. */
function backfill(entries: FeedEntry[], config: Record<string, unknown>, now: number): FeedEntry[] {
  let chosen: FeedEntry[] = [];
  if (config.backfillMode === "days") {
    const since = now - Number(config.backfillDays) * 86_400;
    chosen = entries.filter((e) => e.publishedAt !== null && e.publishedAt >= since);
  } else if (config.backfillMode === "articles") chosen = entries.slice(0, Number(config.backfillItems));
  return typeof config.initialImportCount === "number" ? chosen.slice(0, config.initialImportCount) : chosen;
}
