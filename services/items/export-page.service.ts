// items.internal.exportPage: one page of the caller's items as export records, in id order from a keyset
// position. The key's scope applies (a scoped key exports only its scope). A page's content, highlights, tags and
// collections come in a few queries whatever its length, and its Markdown stays within a byte budget.
import { isScoped, type Caller, type ExportPageReply, type ExportPageRequest, type ExportRecord, type PortableStatus } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { CollectionsService } from "./collections.service.ts";
import type { HighlightRow, HighlightsRepository } from "./highlights.repository.ts";
import type { ItemFilter, ItemRow, ItemsRepository } from "./items.repository.ts";
import type { TagsService } from "./tags.service.ts";

/** Records one page may ask for. */
export const maxExportPage = 1_000;
/** A page with content ends once its Markdown passes this (after at least one record). */
export const exportPageContentBytes = 4 * 1024 * 1024;

const statuses: readonly PortableStatus[] = ["stashed", "flagged", "archived"];

export class ExportPageService {
  constructor(
    private readonly items: ItemsRepository,
    private readonly highlights: HighlightsRepository,
    private readonly tags: TagsService,
    private readonly collections: CollectionsService,
  ) {}

  async exportPage(caller: Caller, payload: unknown): Promise<ExportPageReply> {
    const req = checked(payload);
    const filter = await this.filterOf(caller, req);
    // One row past the limit tells whether another page follows.
    const rows = await this.items.pageInIdOrder(caller.accountId, filter, req.after ?? null, req.limit + 1);
    let more = rows.length > req.limit;
    let page = rows.slice(0, req.limit);
    if (req.includeContent) {
      // Chosen from the stored sizes before any content is read, as list pages do.
      let used = 0;
      let fit = 0;
      while (fit < page.length && (fit === 0 || used + page[fit]!.content_size <= exportPageContentBytes)) used += page[fit++]!.content_size;
      if (fit < page.length) (page = page.slice(0, fit)), (more = true);
    }
    const ids = page.map((r) => r.id);
    const markdowns = req.includeContent ? await this.items.markdowns(caller.accountId, ids) : new Map<string, string>();
    const highlightsOf = new Map<string, HighlightRow[]>();
    for (const h of await this.highlights.listForItems(caller.accountId, ids)) {
      const list = highlightsOf.get(h.item_id) ?? [];
      list.push(h);
      highlightsOf.set(h.item_id, list);
    }
    const records = page.map((r) => recordOf(r, req, highlightsOf.get(r.id) ?? [], markdowns.get(r.id)));
    return { records, next: more && page.length > 0 ? page.at(-1)!.id : null };
  }

  /**
   * The request's filter with the key's scope; a tag or collection the account does not have is refused. Not to a
   * scoped key: that refusal would tell it which tags and collections the account has outside its scope, so for it
   * an unknown one matches nothing, as in lists.
   */
  private async filterOf(caller: Caller, req: ExportPageRequest): Promise<ItemFilter> {
    const fields: Record<string, string> = {};
    const refuseUnknown = !isScoped(caller);
    let tagSlugs: string[] | undefined;
    if (req.tags && req.tags.length > 0) {
      const { slugs, unknown } = await this.tags.resolve(caller, req.tags);
      if (unknown.length > 0 && refuseUnknown) fields.tags = `unknown tag ${unknown.join(", ")}`;
      tagSlugs = slugs;
    }
    let collectionId: string | undefined;
    if (req.collection !== undefined) {
      collectionId = (await this.collections.resolve(caller, req.collection))?.id;
      if (!collectionId && refuseUnknown) fields.collection = `unknown collection ${req.collection}`;
      collectionId ??= "";
    }
    if (Object.keys(fields).length > 0) throw new AppError("validation_failed", Object.values(fields).join("; "), { fields });
    return { statuses: req.status && req.status.length > 0 ? req.status : undefined, tagSlugs, collectionId, scope: caller.scope };
  }
}

function recordOf(r: ItemRow, req: ExportPageRequest, highlights: HighlightRow[], markdown: string | undefined): ExportRecord {
  const record: ExportRecord = {
    id: r.id,
    url: r.url,
    title: r.title,
    status: r.status as PortableStatus,
    tags: r.tag_list.map((t) => t.name),
    collections: r.collection_list.map((c) => c.name),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    processedAt: r.processed_at === null ? null : Number(r.processed_at),
    contentExtractedAt: r.content_extracted_at === null ? null : Number(r.content_extracted_at),
    source: r.source,
    highlights: highlights.map((h) => ({
      text: h.text,
      note: h.note,
      prefix: h.prefix,
      suffix: h.suffix,
      startOffset: h.start_offset,
      endOffset: h.end_offset,
      createdAt: Number(h.created_at),
    })),
  };
  if (req.includeNotes) record.note = r.notes;
  if (markdown !== undefined) record.contentMarkdown = markdown;
  return record;
}

const isNameList = (v: unknown, max: number): v is string[] =>
  Array.isArray(v) && v.length <= 100 && v.every((x) => typeof x === "string" && x.trim().length > 0 && x.length <= max);

/** The request as sent by another service: checked, since the bus carries plain JSON. */
function checked(payload: unknown): ExportPageRequest {
  const p = (payload ?? {}) as Partial<Record<keyof ExportPageRequest, unknown>>;
  const fail = (field: string, why: string) => new AppError("validation_failed", `exportPage: ${field} ${why}`, { fields: { [field]: why } });
  if (p.tags !== undefined && !isNameList(p.tags, 200)) throw fail("tags", "must be a list of at most 100 tag names or slugs");
  if (p.collection !== undefined && (typeof p.collection !== "string" || p.collection.trim() === "" || p.collection.length > 200)) {
    throw fail("collection", "must be a collection id, name or slug");
  }
  if (p.status !== undefined && !(Array.isArray(p.status) && p.status.every((s) => statuses.includes(s)))) throw fail("status", "must be a list of stashed, flagged, archived");
  if (typeof p.includeContent !== "boolean") throw fail("includeContent", "must be a boolean");
  if (typeof p.includeNotes !== "boolean") throw fail("includeNotes", "must be a boolean");
  if (p.after !== undefined && (typeof p.after !== "string" || p.after === "" || p.after.length > 200)) throw fail("after", "must be an item id");
  if (!Number.isInteger(p.limit) || (p.limit as number) < 1 || (p.limit as number) > maxExportPage) throw fail("limit", `must be an integer from 1 to ${maxExportPage}`);
  return p as ExportPageRequest;
}
