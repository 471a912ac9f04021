// items.internal.itemRefs: what the items service tells another service (notes) about some items and highlights
// of the caller. The caller's account and key scope apply: another account's item, one outside the key's scope or
// a missing one is simply left out. Bounded: ids, excerpt bytes and highlight text are all capped.
import type { Caller, HighlightRef, ItemRef, ItemRefsReply, ItemRefsRequest } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { cutBytes } from "@trove/reader";
import type { ItemsRepository } from "./items.repository.ts";
import type { HighlightHead, RefsRepository } from "./refs.repository.ts";

/** Ids one request may name (items and highlights, each). */
export const maxRefIds = 100;
/** The largest excerpt one item may get. */
export const maxExcerptBytes = 64 * 1024;
/** Highlight text (and its note) is cut here. */
export const highlightTextBytes = 1000;
const maxHighlightsPerItem = 5;

export class RefsService {
  constructor(
    private readonly items: ItemsRepository,
    private readonly refs: RefsRepository,
  ) {}

  async itemRefs(caller: Caller, payload: unknown): Promise<ItemRefsReply> {
    const req = checked(payload);
    const itemIds = [...new Set(req.itemIds)];
    const highlightIds = [...new Set(req.highlightIds ?? [])];
    const contentBytes = req.contentBytes ?? 0;
    const perItem = req.highlightsPerItem ?? 0;

    const asked = await this.refs.highlights(caller.accountId, highlightIds, highlightTextBytes);
    // One scoped read decides which items (named, or holding a named highlight) the caller may see.
    const visible = await this.items.getMany(caller.accountId, [...new Set([...itemIds, ...asked.map((h) => h.item_id)])], caller.scope);
    const seen = new Map(visible.map((r) => [r.id, r]));
    const wanted = itemIds.filter((id) => seen.has(id));

    const [excerpts, firsts] = await Promise.all([
      contentBytes > 0 ? this.refs.excerpts(caller.accountId, wanted, contentBytes) : Promise.resolve([]),
      this.refs.firstHighlights(caller.accountId, wanted, perItem, highlightTextBytes),
    ]);
    const excerptOf = new Map(excerpts.map((e) => [e.id, e]));
    const firstOf = new Map<string, HighlightRef[]>();
    for (const h of firsts) {
      const list = firstOf.get(h.item_id) ?? [];
      list.push(refOf(h));
      firstOf.set(h.item_id, list);
    }

    const items: ItemRef[] = wanted.map((id) => {
      const row = seen.get(id)!;
      const ref: ItemRef = {
        id,
        title: row.title,
        url: row.url,
        status: row.status,
        tags: row.tag_list.map((t) => t.name),
        createdAt: Number(row.created_at),
        highlights: firstOf.get(id) ?? [],
      };
      const e = excerptOf.get(id);
      if (e && e.head !== null) {
        const cut = cutBytes(e.head, contentBytes);
        ref.excerpt = cut.text;
        ref.contentTruncated = cut.truncated || e.bytes > contentBytes;
      }
      return ref;
    });
    return { items, highlights: asked.filter((h) => seen.has(h.item_id)).map(refOf) };
  }
}

const refOf = (h: HighlightHead): HighlightRef => ({
  id: h.id,
  itemId: h.item_id,
  text: cutBytes(h.text, highlightTextBytes).text,
  note: cutBytes(h.note, highlightTextBytes).text,
});

const isIdList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string" && x.length > 0 && x.length <= 200);

/** The request as sent by another service: checked, since the bus carries plain JSON. */
function checked(payload: unknown): ItemRefsRequest {
  const p = (payload ?? {}) as Partial<ItemRefsRequest>;
  const fail = (field: string, why: string) => new AppError("validation_failed", `itemRefs: ${field} ${why}`, { fields: { [field]: why } });
  if (!isIdList(p.itemIds)) throw fail("itemIds", "must be a list of ids");
  if (p.itemIds.length > maxRefIds) throw fail("itemIds", `holds at most ${maxRefIds} ids`);
  if (p.highlightIds !== undefined) {
    if (!isIdList(p.highlightIds)) throw fail("highlightIds", "must be a list of ids");
    if (p.highlightIds.length > maxRefIds) throw fail("highlightIds", `holds at most ${maxRefIds} ids`);
  }
  const int = (v: unknown, max: number) => v === undefined || (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= max);
  if (!int(p.contentBytes, maxExcerptBytes)) throw fail("contentBytes", `must be an integer from 0 to ${maxExcerptBytes}`);
  if (!int(p.highlightsPerItem, maxHighlightsPerItem)) throw fail("highlightsPerItem", `must be an integer from 0 to ${maxHighlightsPerItem}`);
  return p as ItemRefsRequest;
}
