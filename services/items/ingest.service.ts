// Saving a page: normalise and dedupe the URL, enforce the plan, fetch (SSRF-guarded) or take the browser's
// HTML, extract, store. Work that outlasts the foreground budget finishes in the background.
import { createHash } from "node:crypto";
import type { Caller, SyncDto } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { newId, nowSeconds } from "@trove/db";
import { ExtractError, type Extraction, type Extractor } from "@trove/extract";
import type { Logger } from "@trove/log";
import { FetchError, fetchPage, urlRefusal, type Resolver } from "@trove/webfetch";
import { itemEvent, scopeOf } from "./events.ts";
import type { HighlightsService } from "./highlights.service.ts";
import type { ItemsRepository } from "./items.repository.ts";
import { monthKey, type ItemsService } from "./items.service.ts";
import type { MediaService } from "./media.service.ts";
import { normalizeUrl, parseSaveUrl, urlHash } from "./url.ts";

export interface IngestOptions {
  allowPrivateNetwork: boolean;
  /** How long the request waits for fetch + extraction before answering `background: true`. */
  waitMs: number;
  /** Name resolution for fetches; unset = the system resolver. */
  resolver?: Resolver;
  /** Extraction off the event loop (the process's worker pool, with a deadline per page). */
  extractor: Extractor;
}

/** What a capture produced: content, or the reason there is none. */
type Capture =
  | { ok: true; extraction: Extraction; source: "fetch" | "browser"; fetchTruncated: boolean; finalUrl: string }
  | { ok: false; error: string };

const fetchLimits = { connectTimeoutMs: 5_000, timeoutMs: 20_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 5 };

export class IngestService {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly repo: ItemsRepository,
    private readonly items: ItemsService,
    private readonly highlights: HighlightsService,
    private readonly media: MediaService,
    private readonly opts: IngestOptions,
    private readonly log: Logger,
  ) {}

  async ingest(caller: Caller, input: { url: string; source?: string; html?: string }) {
    const url = parseSaveUrl(input.url);
    const normalized = normalizeUrl(url);
    const hash = urlHash(normalized);
    const existing = await this.repo.findByHash(caller.accountId, hash);
    if (!existing) await this.ensureQuota(caller);

    // Already captured and no new HTML: count the save, keep the content.
    if (existing && existing.content_extracted_at !== null && existing.content_extract_error === null && input.html === undefined) {
      await this.save(caller, normalized, hash, url.hostname, input.source);
      return { ok: true, id: existing.id, url: normalized, extracted: true, sync: await this.sync(caller, false) };
    }

    const work = this.capture(normalized, input.html);
    const first = await Promise.race([work, Bun.sleep(this.opts.waitMs).then(() => undefined)]);
    if (first && !first.ok && first.error.startsWith("refused:")) {
      throw new AppError("url_not_allowed", first.error.slice("refused:".length), { fields: { url: "resolves to an address Trove may not fetch" } });
    }
    const saved = await this.save(caller, normalized, hash, url.hostname, input.source);
    if (first) {
      await this.store(caller.accountId, saved.id, first, !saved.inserted);
      return this.reply(caller, saved, normalized, first);
    }
    // Slow page: answer now, finish in the background.
    const job = work
      .then((capture) => this.store(caller.accountId, saved.id, capture, true))
      .catch((err) => this.log.error({ err, itemId: saved.id }, "background capture failed"));
    this.pending.add(job);
    void job.finally(() => this.pending.delete(job));
    return { ok: true, id: saved.id, url: normalized, extracted: false, background: true, sync: await this.sync(caller, saved.inserted) };
  }

  /** Waits for background captures (graceful stop), at most `ms`. */
  async drain(ms = 25_000): Promise<void> {
    await Promise.race([Promise.allSettled([...this.pending]), Bun.sleep(ms)]);
  }

  private async reply(caller: Caller, saved: { id: string; inserted: boolean }, url: string, capture: Capture) {
    const base = { ok: true, id: saved.id, url, extracted: capture.ok, sync: await this.sync(caller, saved.inserted) };
    return capture.ok ? base : { ...base, extractError: capture.error };
  }

  private async ensureQuota(caller: Caller) {
    const usage = await this.items.usage(caller);
    if (usage.linkCount >= caller.plan.linkLimit) {
      throw new AppError("quota_reached", `the ${caller.plan.name} plan holds ${caller.plan.linkLimit} items per ${caller.plan.limitScope === "billing_cycle" ? "billing cycle" : "lifetime"}`, {
        plan: caller.plan.name,
        limitScope: caller.plan.limitScope,
        linkLimit: caller.plan.linkLimit,
        linkCount: usage.linkCount,
        sync: syncOf(usage, false, 0),
      });
    }
  }

  private async sync(caller: Caller, added: boolean): Promise<SyncDto> {
    return syncOf(await this.items.usage(caller), added, 1);
  }

  /** Inserts the item (counted toward the plan, item.created) or records one more save of it. */
  private save(caller: Caller, url: string, hash: string, title: string, source: string | undefined) {
    const now = nowSeconds();
    return this.repo.transaction(async (tx) => {
      const saved = await tx.upsert(caller.accountId, { id: newId(), url, urlHash: hash, title, source: source ?? null, now });
      if (saved.inserted) {
        await tx.countUp(caller.accountId, ["lifetime", monthKey(now)]);
        await tx.addEvent(caller.accountId, itemEvent("item.created", saved.id, null, { status: "stashed", tagSlugs: [], collectionIds: [] }, { changedFields: [] }));
      } else {
        const row = (await tx.getById(caller.accountId, saved.id))!;
        const scope = scopeOf(row);
        await tx.addEvent(caller.accountId, itemEvent("item.updated", saved.id, scope, scope, { changedFields: ["timesAdded", "lastSeenAt"] }));
      }
      return saved;
    });
  }

  /** Fetches (unless the browser sent the HTML) and extracts. Never throws: failures become `error`. */
  private async capture(url: string, html: string | undefined): Promise<Capture> {
    try {
      if (html !== undefined) return { ok: true, extraction: await this.opts.extractor.html(html, { url }), source: "browser", fetchTruncated: false, finalUrl: url };
      const page = await fetchPage(url, { allowPrivate: this.opts.allowPrivateNetwork, resolver: this.opts.resolver, ...fetchLimits });
      const isText = page.contentType.startsWith("text/plain") || page.contentType.startsWith("text/markdown");
      const extraction = isText
        ? await this.opts.extractor.text(page.text, { url: page.url, contentType: page.contentType })
        : await this.opts.extractor.html(page.text, { url: page.url, contentType: page.contentType });
      return { ok: true, extraction, source: "fetch", fetchTruncated: page.truncated, finalUrl: page.url };
    } catch (err) {
      const refusal = urlRefusal(err);
      if (refusal) return { ok: false, error: `refused:${refusal.message}` };
      if (err instanceof FetchError) return { ok: false, error: err.reason === "http_status" ? `HTTP ${err.status}` : `${err.reason}: ${err.message}` };
      if (err instanceof ExtractError) return { ok: false, error: err.message };
      this.log.error({ err, url }, "capture failed");
      return { ok: false, error: "extraction failed" };
    }
  }

  /** Stores a capture's content (or its error) on the item; an existing item gets an item.updated event. */
  private async store(accountId: string, itemId: string, capture: Capture, announce: boolean) {
    const now = nowSeconds();
    await this.repo.transaction(async (tx) => {
      // With content: a failed re-capture keeps what the item already had.
      const before = await tx.getById(accountId, itemId, { content: true });
      if (!before) return; // deleted meanwhile
      if (capture.ok) {
        const x = capture.extraction;
        await tx.setContent(accountId, itemId, {
          title: x.title || undefined,
          favicon: x.favicon,
          contentKey: createHash("sha256").update(x.markdown).digest("hex").slice(0, 32),
          contentSize: x.size,
          contentTruncated: x.truncated || capture.fetchTruncated,
          contentSource: capture.source,
          contentExtractedAt: now,
          contentExtractError: null,
          contentMarkdown: x.markdown,
          // The Markdown is stored once (content_markdown); reads put it back into items.main.
          content: { ...x.content, items: { ...x.content.items, main: { ...x.content.items.main, markdown: "" } } },
          now,
        });
      } else {
        const error = capture.error.replace(/^refused:/, "refused: ");
        await tx.setContent(accountId, itemId, {
          contentKey: before.content_key,
          contentSize: before.content_size,
          contentTruncated: before.content_truncated,
          contentSource: before.content_source,
          contentExtractedAt: before.content_extracted_at,
          contentExtractError: error,
          contentMarkdown: before.content_markdown ?? null,
          content: before.content ?? null,
          now,
        });
      }
      if (announce) {
        const scope = scopeOf(before);
        const changed = capture.ok ? ["title", "favicon", "content"] : ["contentExtractError"];
        await tx.addEvent(accountId, itemEvent("item.updated", itemId, scope, scope, { changedFields: changed }));
      }
    });
    if (capture.ok) {
      await this.media.replaceWeb(accountId, itemId, capture.extraction.content.media);
      await this.highlights.reanchor(accountId, itemId, capture.extraction.markdown);
    }
  }
}

/** The sync summary of one received URL, from the plan usage after it. */
function syncOf(u: Awaited<ReturnType<ItemsService["usage"]>>, added: boolean, accepted: number): SyncDto {
  return {
    received: 1,
    accepted,
    upserted: accepted,
    added: added ? 1 : 0,
    skipped: 1 - accepted,
    linkLimit: u.linkLimit,
    linkCount: u.linkCount,
    linkCountLifetime: u.linkCountLifetime,
    linkCountPeriod: u.linkCountPeriod,
    linkCountMonth: u.linkCountMonth,
    linkCountMonthKey: u.linkCountMonthKey,
    limitReached: u.linkCount >= u.linkLimit,
  };
}
