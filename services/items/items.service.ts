// Item rules: reading within the caller's account and scope, changing items with their events,
// bulk actions, the feed, stats, content and progressive reads.
import { contentPageBytes, type Caller, type ItemDto, type RawReply } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { nowSeconds } from "@trove/db";
import { overview, searchWindows, sliceLines } from "@trove/reader";
import type { CollectionsService } from "./collections.service.ts";
import type { ConnectedNotes } from "./connected-notes.ts";
import { changeEvents, itemEvent, scopeOf, type Scope } from "./events.ts";
import type { ItemEvents } from "./item-events.ts";
import type { ItemFilter, ItemRow, ItemsRepository, Page } from "./items.repository.ts";
import type { MediaService } from "./media.service.ts";
import { removeItems } from "./removal.ts";
import type { TagsService } from "./tags.service.ts";
import { parseTime } from "./time.ts";

const statuses = new Set(["stashed", "flagged", "archived"]);

export interface ListQuery {
  since?: string;
  until?: string;
  status?: string;
  tags?: string;
  collection?: string;
  source?: string;
  q?: string;
  limit?: number;
  offset?: number;
}

export interface ItemChange {
  title?: string | null;
  notes?: string | null;
  tags?: string[] | null;
  collectionId?: string;
  collectionIds?: string[];
  archived?: boolean;
  processed?: boolean;
  status?: "stashed" | "flagged" | "archived";
}

export class ItemsService {
  constructor(
    private readonly repo: ItemsRepository,
    private readonly tags: TagsService,
    private readonly collections: CollectionsService,
    private readonly media: MediaService,
    private readonly events: ItemEvents,
    private readonly connected?: ConnectedNotes,
  ) {}

  async get(caller: Caller, id: string, requestId?: string): Promise<ItemDto> {
    // Asked while the item is read (it never rejects): the notes service's time overlaps the database's.
    const notes = this.connected?.of(caller, id, requestId);
    const row = await this.repo.getById(caller.accountId, id, { content: true, highlights: true, scope: caller.scope });
    if (!row) throw new AppError("not_found", "item not found");
    const item = toItem(row, true);
    const linked = await notes;
    if (linked) item.connectedNotes = linked;
    return item;
  }

  /** Translates the common list filters; an unknown collection matches nothing rather than failing. */
  async filterOf(caller: Caller, q: ListQuery, defaults: Partial<ItemFilter> = {}): Promise<ItemFilter> {
    const collection = q.collection?.trim();
    return {
      ...defaults,
      since: parseTime("since", q.since),
      until: parseTime("until", q.until),
      statuses: defaults.statuses ?? parseStatuses(q.status),
      tagSlugs: q.tags ? this.tags.slugsOf(splitList(q.tags)) : undefined,
      collectionId: collection ? ((await this.collections.resolve(caller, collection))?.id ?? "") : undefined,
      source: q.source?.trim() || undefined,
      q: q.q?.trim() || undefined,
      scope: caller.scope,
    };
  }

  async list(caller: Caller, q: ListQuery, withContent: boolean) {
    return this.page(caller.accountId, await this.filterOf(caller, q), q, withContent);
  }

  /** Unprocessed items with content, not archived, each with its structured content and Markdown. */
  async feed(caller: Caller, q: ListQuery) {
    return this.page(caller.accountId, await this.filterOf(caller, q, { unprocessedOnly: true, withContent: true, statuses: ["stashed", "flagged"] }), q, true);
  }

  /** A page of the list; with content it ends early at the byte budget, and nextOffset says where to go on. */
  private async page(accountId: string, filter: ItemFilter, q: ListQuery, withContent: boolean) {
    const page: Page = { limit: q.limit ?? 200, offset: q.offset ?? 0 };
    const { rows, total } = await this.repo.list(accountId, filter, page, withContent ? contentPageBytes : null);
    const next = page.offset + rows.length;
    return { items: rows.map((r) => toItem(r, withContent)), limit: page.limit, offset: page.offset, count: total, nextOffset: next < total ? next : null };
  }

  async stats(caller: Caller, q: { since?: string; until?: string }) {
    const since = parseTime("since", q.since) ?? null;
    const until = parseTime("until", q.until) ?? null;
    const byStatus = { stashed: 0, flagged: 0, archived: 0, ...(await this.repo.countByStatus(caller.accountId, caller.scope)) };
    const count = await this.repo.count(caller.accountId, { since: since ?? undefined, until: until ?? undefined, scope: caller.scope });
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
    return { total, byStatus, range: { since, until, count } };
  }

  async update(caller: Caller, id: string, change: ItemChange) {
    const now = nowSeconds();
    return this.repo.transaction(async (tx, uow) => {
      const row = await tx.getById(caller.accountId, id, { content: change.title === null, scope: caller.scope });
      if (!row) throw new AppError("not_found", "item not found");
      const before = scopeOf(row);
      const set: Parameters<ItemsRepository["updateFields"]>[2] = {};
      const changed: string[] = [];
      if (change.title !== undefined) {
        // null restores the page's own title.
        const title = change.title ?? (extractedTitle(row) || new URL(row.url).hostname);
        if (title !== row.title) (set.title = title), changed.push("title");
      }
      if (change.notes !== undefined && (change.notes ?? "") !== row.notes) (set.notes = change.notes ?? ""), changed.push("notes");
      let status = change.status ?? row.status;
      if (change.archived === true) status = "archived";
      if (change.archived === false && status === "archived") status = "stashed";
      if (status !== row.status) (set.status = status), changed.push("status");
      if (change.processed === true && row.processed_at === null) (set.processed_at = now), changed.push("processedAt");
      if (change.processed === false && row.processed_at !== null) (set.processed_at = null), changed.push("processedAt");

      let tagSlugs = before.tagSlugs;
      if (change.tags !== undefined) tagSlugs = await this.tags.setItemTags(tx, caller, id, before.tagSlugs, change.tags ?? [], now);
      let collectionIds = before.collectionIds;
      if (change.collectionIds !== undefined || change.collectionId !== undefined) {
        const wanted = change.collectionIds ?? [...before.collectionIds, change.collectionId!];
        if (change.collectionIds !== undefined && change.collectionId !== undefined) wanted.push(change.collectionId);
        collectionIds = await this.collections.setItemCollections(tx, caller, id, before.collectionIds, wanted, now);
      }
      const after: Scope = { status, tagSlugs, collectionIds };
      const events = changeEvents(id, before, after, changed);
      if (events.length > 0) set.updated_at = now;
      await tx.updateFields(caller.accountId, id, set);
      if (change.tags !== undefined || collectionIds !== before.collectionIds) await tx.refreshLists(caller.accountId, [id]);
      await this.events.record(uow, caller.accountId, events);
      const fresh = (await tx.getById(caller.accountId, id))!;
      const item = toItem(fresh, false);
      return {
        id: item.id,
        title: item.title,
        notes: item.notes,
        status: item.status,
        tags: item.tags,
        tagSlugs: item.tagSlugs,
        collectionName: item.collectionName,
        collectionSlug: item.collectionSlug,
        collectionIds: item.collectionIds,
        processedAt: item.processedAt,
        updatedAt: item.updatedAt,
      };
    });
  }

  async archive(caller: Caller, ids: string[]) {
    const unique = [...new Set(ids)];
    const archived = await this.repo.transaction(async (tx, uow) => {
      const rows = await tx.getMany(caller.accountId, unique, caller.scope);
      const now = nowSeconds();
      for (const row of rows.filter((r) => r.status !== "archived")) {
        const before = scopeOf(row);
        await tx.updateFields(caller.accountId, row.id, { status: "archived", updated_at: now });
        await this.events.record(uow, caller.accountId, [itemEvent("item.updated", row.id, before, { ...before, status: "archived" }, { changedFields: ["status"] })]);
      }
      return rows.length;
    });
    return { requested: ids.length, archived };
  }

  async markProcessed(caller: Caller, ids: string[]) {
    const processed = await this.repo.transaction(async (tx, uow) => {
      const rows = await tx.getMany(caller.accountId, [...new Set(ids)], caller.scope);
      const now = nowSeconds();
      for (const row of rows.filter((r) => r.processed_at === null)) {
        const scope = scopeOf(row);
        await tx.updateFields(caller.accountId, row.id, { processed_at: now, updated_at: now });
        await this.events.record(uow, caller.accountId, [itemEvent("item.updated", row.id, scope, scope, { changedFields: ["processedAt"] })]);
      }
      return rows.length;
    });
    return { processed };
  }

  /**
   * Deletes permanently the items among `ids` that the caller can see (rows locked, so a concurrent upload or
   * capture either lands first and goes with the item, or finds it gone). Only the deleted items' uploads lose
   * their blobs, after the commit.
   */
  async delete(caller: Caller, ids: string[]) {
    const { deleted, blobKeys } = await this.repo.transaction(async (tx, uow) =>
      removeItems(tx, uow, this.events, caller.accountId, await tx.getMany(caller.accountId, [...new Set(ids)], caller.scope, { lock: true })),
    );
    await this.media.dropBlobs(blobKeys);
    return { requested: ids.length, deleted };
  }

  private async markdown(caller: Caller, id: string): Promise<{ row: ItemRow; markdown: string }> {
    const row = await this.repo.getById(caller.accountId, id, { content: true, scope: caller.scope });
    if (!row) throw new AppError("not_found", "item not found");
    return { row, markdown: row.content_markdown ?? "" };
  }

  async content(caller: Caller, id: string): Promise<RawReply> {
    const { row, markdown } = await this.markdown(caller, id);
    return {
      body: markdown,
      encoding: "utf8",
      contentType: "text/markdown; charset=utf-8",
      headers: {
        "x-content-size": String(Buffer.byteLength(markdown, "utf8")),
        "x-content-truncated": String(row.content_truncated),
        "x-content-available": String(row.content_markdown != null),
      },
    };
  }

  async read(caller: Caller, id: string, q: { view?: string; q?: string; contextLines?: number; limit?: number; lines?: string }) {
    const { row, markdown } = await this.markdown(caller, id);
    const view = q.view ?? "overview";
    const meta = { id: row.id, title: row.title, url: row.url, contentTruncated: row.content_truncated, contentAvailable: row.content_markdown != null };
    switch (view) {
      case "overview":
        return { view, item: meta, ...overview(markdown) };
      case "search":
        if (!q.q) throw new AppError("validation_failed", "view=search needs q", { fields: { q: "required for view=search" } });
        return { view, item: meta, ...searchWindows(markdown, q.q, { contextLines: q.contextLines, limit: q.limit }) };
      case "lines":
        if (!q.lines) throw new AppError("validation_failed", "view=lines needs lines=start:end", { fields: { lines: "required for view=lines" } });
        return { view, item: meta, ...sliceLines(markdown, q.lines) };
      default:
        return { view: "full", item: meta, text: markdown, bytes: Buffer.byteLength(markdown, "utf8") };
    }
  }
}

export const splitList = (raw: string) => raw.split(",").map((s) => s.trim()).filter(Boolean);

/** Validates a comma-separated status filter; archived items are left out when none is given. */
export function parseStatuses(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === "") return ["stashed", "flagged"];
  const list = splitList(raw.toLowerCase());
  const bad = list.filter((s) => !statuses.has(s));
  if (bad.length > 0) {
    throw new AppError("validation_failed", `unknown status ${bad.join(", ")}; use stashed, flagged or archived`, {
      fields: { status: `unknown value ${bad.join(", ")}` },
    });
  }
  return list;
}

function extractedTitle(r: ItemRow): string {
  const fm = (r.content as { meta?: { frontmatter?: { title?: unknown } } } | null)?.meta?.frontmatter;
  return typeof fm?.title === "string" ? fm.title : "";
}

/** Stored content leaves the main entry's Markdown empty (it is in content_markdown): put it back. */
function withMarkdown(content: NonNullable<ItemDto["content"]>, markdown: string): NonNullable<ItemDto["content"]> {
  const main = content.items.main;
  if (!main || main.markdown !== "") return content;
  return { ...content, items: { ...content.items, main: { ...main, markdown } } };
}

export function toItem(r: ItemRow, withContent: boolean): ItemDto {
  const first = r.collection_list[0];
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
    tags: r.tag_list.map((t) => t.name),
    tagSlugs: r.tag_list.map((t) => t.slug),
    collectionName: first?.name ?? null,
    collectionSlug: first?.slug ?? null,
    collectionIds: r.collection_list.map((c) => c.id),
    source: r.source,
    contentExtractedAt: r.content_extracted_at,
    contentKey: r.content_key,
    contentSize: r.content_size,
    contentExtractError: r.content_extract_error,
    contentTruncated: r.content_truncated,
    contentSource: r.content_source,
    contentAvailable: r.content_extracted_at !== null && r.content_extract_error === null,
    processedAt: r.processed_at,
  };
  if (withContent && r.content_markdown != null) {
    item.contentMarkdown = r.content_markdown;
    if (r.content) item.content = withMarkdown(r.content as NonNullable<ItemDto["content"]>, r.content_markdown);
  }
  if (r.highlight_list && r.highlight_list.length > 0) item.highlights = r.highlight_list as ItemDto["highlights"];
  return item;
}
