// The change stream: the items' events in the event log, read in position (commit) order and narrowed to what one
// reader may see: the key's scope and the request's tag and collection filters, with item.removed_from_scope for
// an item that leaves them. The cursor is the last position read, bound to the account.
import { contentPageBytes, insideScope, typeForReader, type Caller, type ItemDto, type ItemEventMessage, type ScopeFilter } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { CollectionsService } from "./collections.service.ts";
import { scopeOf } from "./events.ts";
import type { ItemEvents } from "./item-events.ts";
import type { ItemRow, ItemsRepository } from "./items.repository.ts";
import { splitList, toItem } from "./items.service.ts";
import type { TagsService } from "./tags.service.ts";
import { parseTime } from "./time.ts";

export interface ChangesQuery {
  cursor?: string;
  updated_since?: string;
  tags?: string;
  collection?: string;
  limit?: number;
  include?: "content";
}

/** Rows read per step while filtering, and at most per page: a narrow filter answers a short page, never a long wait. */
const scanStep = 1_000;
const scanBudget = 20_000;

export class ChangesService {
  constructor(
    private readonly items: ItemsRepository,
    private readonly log: ItemEvents,
    private readonly tags: TagsService,
    private readonly collections: CollectionsService,
  ) {}

  async changes(caller: Caller, q: ChangesQuery) {
    const accountId = caller.accountId;
    const limit = q.limit ?? 200;
    const filters = await this.filtersOf(caller, q);
    let from = q.cursor !== undefined ? decodeCursor(q.cursor, accountId) : 0;
    const since = q.cursor === undefined ? parseTime("updated_since", q.updated_since) : undefined;
    // Read your own writes: events committed before this request get their positions now.
    await this.log.assignPositions();
    if (since !== undefined) from = await this.log.positionBefore(accountId, since * 1000);
    const { picked, last, hasMore } = await this.scan(accountId, from, limit, filters);
    const page = await this.withItems(caller, picked, filters, q.include === "content");
    const cut = page.length < picked.length;
    const end = cut ? page.at(-1)!.position : last;
    return {
      events: page.map((p) => p.event),
      nextCursor: encodeCursor(accountId, end),
      hasMore: hasMore || cut,
      limit,
    };
  }

  /** Events after `from` that the reader sees, up to `limit`; `last` is the position read up to. */
  private async scan(accountId: string, from: number, limit: number, filters: ScopeFilter[]) {
    const picked: { row: ItemEventMessage; type: string }[] = [];
    let last = from;
    let scanned = 0;
    for (;;) {
      const want = filters.length === 0 ? limit - picked.length + 1 : scanStep;
      const rows = await this.log.after(accountId, last, want);
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        if (picked.length === limit) return { picked, last, hasMore: true };
        last = Number(row.position);
        const type = typeForReader(row.type, row.beforeScope, row.afterScope, filters);
        if (type) picked.push({ row, type });
      }
      scanned += rows.length;
      if (rows.length < want) return { picked, last, hasMore: false };
      if (picked.length === limit) return { picked, last, hasMore: (await this.log.after(accountId, last, 1)).length > 0 };
      if (scanned >= scanBudget) return { picked, last, hasMore: true };
    }
  }

  /** Attaches each event's current item while it is in scope; with content, the page ends at the Markdown budget. */
  private async withItems(caller: Caller, picked: { row: ItemEventMessage; type: string }[], filters: ScopeFilter[], withContent: boolean) {
    const ids = [...new Set(picked.filter((p) => p.type !== "item.deleted" && p.type !== "item.removed_from_scope").map((p) => p.row.itemId))];
    const rows = ids.length > 0 ? await this.items.getMany(caller.accountId, ids, caller.scope) : [];
    const visible = new Map<string, ItemRow>();
    for (const r of rows) if (insideScope(scopeOf(r), filters)) visible.set(r.id, r);
    let kept = picked.length;
    if (withContent) {
      let used = 0;
      const counted = new Set<string>();
      for (let i = 0; i < picked.length; i++) {
        const r = visible.get(picked[i]!.row.itemId);
        if (!r || counted.has(r.id)) continue;
        if (i > 0 && used + r.content_size > contentPageBytes) {
          kept = i;
          break;
        }
        counted.add(r.id);
        used += r.content_size;
      }
      const needed = new Set(picked.slice(0, kept).map((p) => p.row.itemId));
      await this.items.addContents(caller.accountId, [...visible.values()].filter((r) => needed.has(r.id)));
    }
    const dtos = new Map<string, ItemDto>();
    return picked.slice(0, kept).map(({ row, type }) => {
      const r = type === "item.deleted" || type === "item.removed_from_scope" ? undefined : visible.get(row.itemId);
      let item: ItemDto | undefined;
      if (r) {
        item = dtos.get(r.id) ?? toItem(r, withContent);
        dtos.set(r.id, item);
      }
      return {
        position: Number(row.position),
        event: {
          id: row.id,
          type: type as ItemEventMessage["type"],
          changedAt: Number(row.changedAt),
          itemId: row.itemId,
          beforeScope: row.beforeScope,
          afterScope: row.afterScope,
          payload: row.payload,
          ...(item ? { item } : {}),
        },
      };
    });
  }

  /** The key's scope and the request's filters, all of which an item must pass. */
  private async filtersOf(caller: Caller, q: ChangesQuery): Promise<ScopeFilter[]> {
    const filters: ScopeFilter[] = [];
    if (caller.scope) filters.push(caller.scope);
    if (q.tags) for (const slug of this.tags.slugsOf(splitList(q.tags))) filters.push({ tagSlugs: [slug] });
    const collection = q.collection?.trim();
    if (collection) {
      // An unknown collection matches nothing, as in the item list.
      const found = await this.collections.resolve(caller, collection);
      filters.push({ collectionId: found?.id ?? `unknown:${collection}` });
    }
    return filters;
  }
}

const cursorVersion = 1;

export function encodeCursor(accountId: string, position: number): string {
  return Buffer.from(JSON.stringify({ v: cursorVersion, a: accountId, p: position })).toString("base64url");
}

function decodeCursor(cursor: string, accountId: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = null;
  }
  const c = parsed as { v?: unknown; a?: unknown; p?: unknown } | null;
  if (!c || c.v !== cursorVersion || typeof c.a !== "string" || !Number.isSafeInteger(c.p) || (c.p as number) < 0) {
    throw new AppError("invalid_cursor", "cursor is not a nextCursor this API gave out");
  }
  // Another account's cursor says nothing about this one's log.
  if (c.a !== accountId) throw new AppError("invalid_cursor", "cursor belongs to another credential's account");
  return c.p as number;
}
