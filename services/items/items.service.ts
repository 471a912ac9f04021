// Item rules: saving with dedupe, reading within the caller's account, usage counts, and the outbox events.
import type { Caller, ItemDto } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { newId, nowMillis, nowSeconds } from "@trove/db";
import type { ItemRow, ItemsRepository, ListFilter } from "./items.repository.ts";
import { normalizeUrl, parseSaveUrl, urlHash } from "./url.ts";

const statuses = new Set(["stashed", "flagged", "archived"]);

export const monthKey = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 7);

export class ItemsService {
  constructor(private readonly repo: ItemsRepository) {}

  async ingest(caller: Caller, input: { url: string; source?: string }) {
    const url = parseSaveUrl(input.url);
    const normalized = normalizeUrl(url);
    const now = nowSeconds();
    const id = newId();
    const result = await this.repo.transaction(async (tx) => {
      const saved = await tx.upsert(caller.accountId, {
        id,
        url: normalized,
        urlHash: urlHash(normalized),
        title: url.hostname,
        source: input.source ?? null,
        now,
      });
      if (saved.inserted) {
        await tx.countUp(caller.accountId, ["lifetime", monthKey(now)]);
        await tx.addEvent(caller.accountId, {
          id: newId(),
          type: "item.created",
          itemId: saved.id,
          changedAt: nowMillis(),
          beforeScope: null,
          afterScope: { status: "stashed", tagSlugs: [], collectionIds: [] },
          payload: { changedFields: [] },
        });
      }
      return saved;
    });
    return { ok: true, id: result.id, url: normalized, extracted: false };
  }

  async get(caller: Caller, id: string): Promise<ItemDto> {
    const row = await this.repo.getById(caller.accountId, id);
    if (!row) throw new AppError("not_found", "item not found");
    return toItem(row, true);
  }

  async list(caller: Caller, filter: ListFilter, withContent: boolean) {
    const { rows, total } = await this.repo.list(caller.accountId, filter, withContent);
    return { items: rows.map((r) => toItem(r, withContent)), limit: filter.limit, offset: filter.offset, count: total };
  }

  async usage(caller: Caller) {
    const now = nowSeconds();
    const month = monthKey(now);
    const counts = await this.repo.usage(caller.accountId, ["lifetime", month]);
    const lifetime = counts.lifetime ?? 0;
    const monthCount = counts[month] ?? 0;
    // A billing cycle is the calendar month (UTC).
    const period = caller.plan.limitScope === "billing_cycle" ? monthCount : lifetime;
    return {
      plan: caller.plan.name,
      limitScope: caller.plan.limitScope,
      linkLimit: caller.plan.linkLimit,
      linkCount: period,
      linkCountMonth: monthCount,
      linkCountPeriod: period,
      linkCountLifetime: lifetime,
    };
  }
}

/** Validates a comma-separated status filter; archived items are left out when none is given. */
export function parseStatuses(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === "") return ["stashed", "flagged"];
  const list = raw.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
  const bad = list.filter((s) => !statuses.has(s));
  if (bad.length > 0) {
    throw new AppError("validation_failed", `unknown status ${bad.join(", ")}; use stashed, flagged or archived`, {
      fields: { status: `unknown value ${bad.join(", ")}` },
    });
  }
  return list;
}

export function toItem(r: ItemRow, withContent: boolean): ItemDto {
  const item: ItemDto = {
    id: r.id,
    url: r.url,
    urlHash: r.url_hash,
    title: r.title,
    favicon: r.favicon,
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
    updatedAt: r.updated_at,
    status: r.status as ItemDto["status"],
    timesAdded: r.times_added,
    notes: r.notes,
    tags: [],
    tagSlugs: [],
    collectionName: null,
    collectionSlug: null,
    contentExtractedAt: r.content_extracted_at,
    contentKey: r.content_key,
    contentSize: r.content_size,
    contentExtractError: r.content_extract_error,
    contentTruncated: r.content_truncated,
    contentSource: r.content_source,
    contentAvailable: r.content_size > 0,
    processedAt: r.processed_at,
  };
  if (withContent && r.content_markdown !== null && r.content_markdown !== undefined) {
    item.contentMarkdown = r.content_markdown;
    if (r.content) item.content = r.content as ItemDto["content"];
  }
  return item;
}
