// Saving a page: normalise and dedupe the URL, refuse what may not be fetched, fetch (SSRF-guarded) or take the
// browser's HTML, extract, and store it all in one transaction with the plan count. Work that outlasts the
// foreground budget finishes in the background.
import { createHash } from "node:crypto";
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { newId, nowSeconds } from "@trove/db";
import { ExtractError, type Extraction, type Extractor } from "@trove/extract";
import type { Logger } from "@trove/log";
import { FetchError, checkTarget, fetchPage, urlRefusal, type Resolver } from "@trove/webfetch";
import { itemEvent, scopeOf } from "./events.ts";
import type { HighlightsService } from "./highlights.service.ts";
import type { ItemRow, ItemsRepository } from "./items.repository.ts";
import type { MediaService } from "./media.service.ts";
import { removeItems } from "./removal.ts";
import { normalizeUrl, parseSaveUrl, urlHash } from "./url.ts";
import type { UsageService } from "./usage.service.ts";

export interface IngestOptions {
  allowPrivateNetwork: boolean;
  /** How long the request waits for fetch + extraction before answering `background: true`. */
  waitMs: number;
  /** Name resolution for fetches; unset = the system resolver. */
  resolver?: Resolver;
  /** Extraction off the event loop (the process's worker pool, with a deadline per page). */
  extractor: Extractor;
}

/** What a capture produced: content, or the reason there is none (`refused`: a URL Trove may not fetch). */
type Capture =
  | { ok: true; extraction: Extraction; source: "fetch" | "browser"; fetchTruncated: boolean; finalUrl: string }
  | { ok: false; error: string; refused?: true };

/** One save: the normalised URL and what the item starts with. */
interface Save {
  url: string;
  hash: string;
  title: string;
  source: string | null;
}

const fetchLimits = { connectTimeoutMs: 5_000, timeoutMs: 20_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 5 };

/** Thrown inside the save's transaction when the plan is full, so that the insert rolls back with it. */
class PlanFull extends Error {}

const hasContent = (r: ItemRow) => r.content_extracted_at !== null && r.content_extract_error === null;

export class IngestService {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly repo: ItemsRepository,
    private readonly usage: UsageService,
    private readonly highlights: HighlightsService,
    private readonly media: MediaService,
    private readonly opts: IngestOptions,
    private readonly log: Logger,
  ) {}

  async ingest(caller: Caller, input: { url: string; source?: string; html?: string }) {
    const url = parseSaveUrl(input.url);
    const normalized = normalizeUrl(url);
    const save: Save = { url: normalized, hash: urlHash(normalized), title: url.hostname, source: input.source ?? null };
    const existing = await this.repo.findByHash(caller.accountId, save.hash);
    // Refused early, before any fetch; the count is checked again, atomically, where the item is inserted.
    if (!existing) await this.usage.ensureRoom(caller);

    // Already captured and no new HTML: count the save, keep the content.
    if (existing && hasContent(existing) && input.html === undefined) {
      const saved = await this.save(caller, save, null);
      return { ok: true, id: saved.id, url: normalized, extracted: true, sync: await this.usage.sync(caller, false) };
    }

    // A URL whose host Trove may not reach is refused before anything is saved, however slow its capture.
    if (input.html === undefined) await this.refuseBlocked(normalized);
    const captureId = newId();
    const work = this.capture(normalized, input.html);
    const first = await Promise.race([work, Bun.sleep(this.opts.waitMs).then(() => undefined)]);
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

  /** Waits for background captures (graceful stop), at most `ms`. */
  async drain(ms = 25_000): Promise<void> {
    await Promise.race([Promise.allSettled([...this.pending]), Bun.sleep(ms)]);
  }

  private async refuseBlocked(url: string): Promise<void> {
    try {
      await checkTarget(url, { allowPrivate: this.opts.allowPrivateNetwork, resolver: this.opts.resolver, timeoutMs: fetchLimits.connectTimeoutMs });
    } catch (err) {
      const refused = urlRefusal(err);
      if (refused) throw refusal(refused.message);
      throw err;
    }
  }

  /**
   * One transaction: the item inserted and counted toward the plan (item.created), or one more save of it
   * recorded (item.updated), plus the capture's content when there is one. All or nothing: a save refused by the
   * plan, or whose content cannot be stored, leaves no item and no count behind.
   */
  private async save(caller: Caller, s: Save, stored: { capture: Capture; captureId: string } | null) {
    const now = nowSeconds();
    try {
      return await this.repo.transaction(async (tx) => {
        const saved = await tx.upsert(caller.accountId, { id: newId(), url: s.url, urlHash: s.hash, title: s.title, source: s.source, now });
        if (saved.inserted) {
          if (!(await this.usage.countNew(tx, caller, now))) throw new PlanFull();
          await tx.addEvent(caller.accountId, itemEvent("item.created", saved.id, null, { status: "stashed", tagSlugs: [], collectionIds: [] }, { changedFields: [] }));
        } else {
          const scope = scopeOf((await tx.getById(caller.accountId, saved.id))!);
          await tx.addEvent(caller.accountId, itemEvent("item.updated", saved.id, scope, scope, { changedFields: ["timesAdded", "lastSeenAt"] }));
        }
        if (stored) await this.storeIn(tx, caller.accountId, saved.id, stored.capture, stored.captureId, !saved.inserted);
        return saved;
      });
    } catch (err) {
      if (err instanceof PlanFull) throw await this.usage.quotaError(caller);
      throw err;
    }
  }

  private finishLater(caller: Caller, saved: { id: string; inserted: boolean }, work: Promise<Capture>, captureId: string) {
    const job = work
      .then(async (capture) => {
        let outcome: string;
        if (!capture.ok && capture.refused) outcome = await this.withdraw(caller.accountId, saved, capture.error);
        else {
          const stored = await this.repo.transaction((tx) => this.storeIn(tx, caller.accountId, saved.id, capture, captureId, true));
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
  private async withdraw(accountId: string, saved: { id: string; inserted: boolean }, message: string): Promise<string> {
    let outcome = "refused";
    const blobKeys = await this.repo.transaction(async (tx) => {
      const row = await tx.getById(accountId, saved.id, { content: true, lock: true });
      if (!row) return [];
      if (saved.inserted && row.content_capture_id === null) {
        const removed = await removeItems(tx, accountId, [row]);
        await this.usage.giveBack(tx, accountId, row.created_at);
        outcome = "withdrawn";
        return removed.blobKeys;
      }
      await tx.setContent(accountId, row.id, { ...keptContent(row), contentExtractError: `url_not_allowed: ${message}`, now: nowSeconds() });
      const scope = scopeOf(row);
      await tx.addEvent(accountId, itemEvent("item.updated", row.id, scope, scope, { changedFields: ["contentExtractError"] }));
      return [];
    });
    await this.media.dropBlobs(blobKeys);
    return outcome;
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
      if (refusal) return { ok: false, error: refusal.message, refused: true };
      if (err instanceof FetchError) return { ok: false, error: err.reason === "http_status" ? `HTTP ${err.status}` : `${err.reason}: ${err.message}` };
      if (err instanceof ExtractError) return { ok: false, error: err.message };
      this.log.error({ err, url }, "capture failed");
      return { ok: false, error: "extraction failed" };
    }
  }

  /**
   * Stores a capture's content (or its error) on the item, inside the caller's transaction, with the item row
   * locked: captures of one item apply one at a time, and one older than the content's capture changes nothing
   * (the newest capture wins, whichever finishes first). Images and highlight offsets follow in the same step.
   * False when nothing was stored (the item is gone, or a newer capture's content is there).
   */
  private async storeIn(tx: ItemsRepository, accountId: string, itemId: string, capture: Capture, captureId: string, announce: boolean): Promise<boolean> {
    const before = await tx.getById(accountId, itemId, { content: true, lock: true });
    if (!before) return false; // deleted meanwhile
    if (before.content_capture_id !== null && before.content_capture_id > captureId) return false;
    const now = nowSeconds();
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
        captureId,
        now,
      });
      await this.media.replaceWebIn(tx, accountId, itemId, x.content.media);
      await this.highlights.reanchorIn(tx, accountId, itemId, x.markdown);
    } else {
      // A failed capture keeps the content the item already had.
      await tx.setContent(accountId, itemId, { ...keptContent(before), contentExtractError: capture.error, now });
    }
    if (announce) {
      const scope = scopeOf(before);
      const changed = capture.ok ? ["title", "favicon", "content"] : ["contentExtractError"];
      await tx.addEvent(accountId, itemEvent("item.updated", itemId, scope, scope, { changedFields: changed }));
    }
    return true;
  }
}

/** The item's current content, to write back unchanged beside a new error. */
function keptContent(r: ItemRow) {
  return {
    contentKey: r.content_key,
    contentSize: r.content_size,
    contentTruncated: r.content_truncated,
    contentSource: r.content_source,
    contentExtractedAt: r.content_extracted_at,
    contentMarkdown: r.content_markdown ?? null,
    content: r.content ?? null,
  };
}

function refusal(message: string): AppError {
  return new AppError("url_not_allowed", message, { fields: { url: "names or resolves to an address Trove may not fetch" } });
}
