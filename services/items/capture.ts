// Capturing an item's content, shared by saves (ingest), imports and captures of an existing item: fetch
// (SSRF-guarded) or take given HTML/Markdown, extract on the worker pool, and store the result on the item inside
// the caller's transaction with its images and highlight offsets.
import { createHash } from "node:crypto";
import { AppError } from "@trove/errors";
import { nowSeconds, type UnitOfWork } from "@trove/db";
import { ExtractError, type ExtractErrorReason, type Extraction, type Extractor } from "@trove/extract/pooled.ts";
import type { Logger } from "@trove/log";
import { FetchError, checkTarget, fetchPage, urlRefusal, type Resolver } from "@trove/webfetch";
import { itemEvent, scopeOf } from "./events.ts";
import type { HighlightsService } from "./highlights.service.ts";
import type { ItemEvents } from "./item-events.ts";
import type { ItemRow, ItemsRepository } from "./items.repository.ts";
import type { MediaService } from "./media.service.ts";

export interface CaptureOptions {
  allowPrivateNetwork: boolean;
  /** Name resolution for fetches; unset = the system resolver. */
  resolver?: Resolver;
  /** Extraction off the event loop (the process's worker pool, with a deadline per page). */
  extractor: Extractor;
}

/**
 * What a capture produced: content, or the reason there is none (`refused`: a URL Trove may not fetch; `ours`: a
 * fault of this process, not of the page: the worker pool was full or closed, the capture was aborted, so that a
 * capture run as a job tries again rather than record it on the item). `source` becomes the item's contentSource:
 * fetched, sent by the browser, or carried by an import file.
 */
export type Capture =
  | { ok: true; extraction: Extraction; source: "fetch" | "browser" | "import"; fetchTruncated: boolean; finalUrl: string }
  | { ok: false; error: string; refused?: true; ours?: true };

const fetchLimits = { connectTimeoutMs: 5_000, timeoutMs: 20_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 5 };
const ourExtractFaults = new Set<ExtractErrorReason>(["extract_busy", "extract_failed"]);

export class ContentCapture {
  constructor(
    private readonly highlights: HighlightsService,
    private readonly media: MediaService,
    private readonly events: ItemEvents,
    private readonly opts: CaptureOptions,
    private readonly log: Logger,
  ) {}

  /** Throws url_not_allowed when the URL's first hop is one Trove may not reach (checked after DNS). */
  async refuseBlocked(url: string): Promise<void> {
    try {
      await checkTarget(url, { allowPrivate: this.opts.allowPrivateNetwork, resolver: this.opts.resolver, timeoutMs: fetchLimits.connectTimeoutMs });
    } catch (err) {
      const refused = urlRefusal(err);
      if (refused) throw refusal(refused.message);
      throw err;
    }
  }

  /**
   * Fetches (unless the browser sent the HTML) and extracts. Never throws: failures become `error`. `signal` ends
   * the fetch early (the capture's job was given back or taken over).
   */
  async capture(url: string, html: string | undefined, signal?: AbortSignal): Promise<Capture> {
    try {
      if (html !== undefined) return { ok: true, extraction: await this.opts.extractor.html(html, { url }), source: "browser", fetchTruncated: false, finalUrl: url };
      const page = await fetchPage(url, { allowPrivate: this.opts.allowPrivateNetwork, resolver: this.opts.resolver, signal, ...fetchLimits });
      const isText = page.contentType.startsWith("text/plain") || page.contentType.startsWith("text/markdown");
      const extraction = isText
        ? await this.opts.extractor.text(page.text, { url: page.url, contentType: page.contentType })
        : await this.opts.extractor.html(page.text, { url: page.url, contentType: page.contentType });
      return { ok: true, extraction, source: "fetch", fetchTruncated: page.truncated, finalUrl: page.url };
    } catch (err) {
      return this.failed(err, url, signal);
    }
  }

  /** Content an import file carries (Markdown preferred), extracted like a fetched page of that type. Never throws. */
  async provided(url: string, content: { markdown?: string; html?: string }): Promise<Capture> {
    try {
      const extraction =
        content.markdown !== undefined
          ? await this.opts.extractor.text(content.markdown, { url, contentType: "text/markdown" })
          : await this.opts.extractor.html(content.html ?? "", { url });
      return { ok: true, extraction, source: "import", fetchTruncated: false, finalUrl: url };
    } catch (err) {
      return this.failed(err, url);
    }
  }

  private failed(err: unknown, url: string, signal?: AbortSignal): Capture {
    const refusal = urlRefusal(err);
    if (refusal) return { ok: false, error: refusal.message, refused: true };
    if (signal?.aborted) return { ok: false, error: "the capture was stopped", ours: true };
    if (err instanceof FetchError) return { ok: false, error: err.reason === "http_status" ? `HTTP ${err.status}` : `${err.reason}: ${err.message}` };
    // A full queue or a closed pool says nothing about the page (a timeout or a page too complex does).
    if (err instanceof ExtractError) return { ok: false, error: err.message, ...(ourExtractFaults.has(err.reason) ? { ours: true as const } : {}) };
    this.log.error({ err, url }, "capture failed");
    return { ok: false, error: "extraction failed" };
  }

  /**
   * Stores a capture's content (or its error) on the item, inside the caller's unit of work, with the item row
   * locked: captures of one item apply one at a time, and one older than the content's capture changes nothing
   * (the newest capture wins, whichever finishes first). Images and highlight offsets follow in the same step.
   * `keepTitle`: the item's title stays (an imported title is the user's). False when nothing was stored (the
   * item is gone, or a newer capture's content is there).
   */
  async storeIn(
    tx: ItemsRepository,
    uow: UnitOfWork,
    accountId: string,
    itemId: string,
    capture: Capture,
    captureId: string,
    opts: { announce: boolean; keepTitle?: boolean },
  ): Promise<boolean> {
    const before = await tx.getById(accountId, itemId, { content: true, lock: true });
    if (!before) return false; // deleted meanwhile
    if (before.content_capture_id !== null && before.content_capture_id > captureId) return false;
    const now = nowSeconds();
    if (capture.ok) {
      const x = capture.extraction;
      await tx.setContent(accountId, itemId, {
        title: opts.keepTitle ? undefined : x.title || undefined,
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
    if (opts.announce) {
      const scope = scopeOf(before);
      const changed = capture.ok ? [...(opts.keepTitle ? [] : ["title"]), "favicon", "content"] : ["contentExtractError"];
      await this.events.record(uow, accountId, [itemEvent("item.updated", itemId, scope, scope, { changedFields: changed })]);
    }
    return true;
  }
}

/** The item's current content, to write back unchanged beside a new error. */
export function keptContent(r: ItemRow) {
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

export function refusal(message: string): AppError {
  return new AppError("url_not_allowed", message, { fields: { url: "names or resolves to an address Trove may not fetch" } });
}
