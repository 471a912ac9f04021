// Highlight rules: a highlight belongs to an item the caller can see; its offsets are found from its text and
// anchors when not given, and found again whenever the item's content is extracted anew.
import type { Caller, HighlightDto } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { newId, nowSeconds } from "@trove/db";
import { anchorsAt, locate } from "./anchors.ts";
import { HighlightsRepository, type HighlightChange, type HighlightRow } from "./highlights.repository.ts";
import type { ItemsRepository } from "./items.repository.ts";

export interface HighlightInput {
  text: string;
  prefix?: string;
  suffix?: string;
  note?: string | null;
  startOffset?: number;
  endOffset?: number;
}

const toDto = (h: HighlightRow): HighlightDto => ({
  id: h.id,
  itemId: h.item_id,
  text: h.text,
  prefix: h.prefix,
  suffix: h.suffix,
  note: h.note,
  startOffset: h.start_offset,
  endOffset: h.end_offset,
  createdAt: h.created_at,
  updatedAt: h.updated_at,
});

export class HighlightsService {
  constructor(
    private readonly repo: HighlightsRepository,
    private readonly items: ItemsRepository,
  ) {}

  /** The item, if the caller may see it; `lock` holds it for the rest of `items`' transaction. */
  private async visibleItem(items: ItemsRepository, caller: Caller, itemId: string, opts: { content?: boolean; lock?: boolean } = {}) {
    const item = await items.getById(caller.accountId, itemId, { ...opts, scope: caller.scope });
    if (!item) throw new AppError("not_found", "item not found");
    return item;
  }

  /** The highlight, if the caller may see its item (a scoped key sees only highlights of items in its scope). */
  private async visibleHighlight(items: ItemsRepository, caller: Caller, id: string, opts: { content?: boolean; lock?: boolean } = {}) {
    const h = await new HighlightsRepository(items.kysely).get(caller.accountId, id);
    const item = h && (await items.getById(caller.accountId, h.item_id, { ...opts, scope: caller.scope }));
    if (!h || !item) throw new AppError("not_found", "highlight not found");
    return { h, item };
  }

  async list(caller: Caller, itemId: string, limit: number, offset: number) {
    await this.visibleItem(this.items, caller, itemId);
    const rows = await this.repo.listForItem(caller.accountId, itemId, limit + 1, offset);
    const hasMore = rows.length > limit;
    return { highlights: rows.slice(0, limit).map(toDto), hasMore, nextOffset: hasMore ? offset + limit : null };
  }

  async get(caller: Caller, id: string) {
    return { highlight: toDto((await this.visibleHighlight(this.items, caller, id)).h) };
  }

  /** Placed on the item's content as it stands in the same transaction, with the item held against a delete. */
  async create(caller: Caller, itemId: string, input: HighlightInput) {
    const row = await this.items.transaction(async (tx) => {
      const item = await this.visibleItem(tx, caller, itemId, { content: true, lock: true });
      const now = nowSeconds();
      const row: HighlightRow = { id: newId(), item_id: itemId, note: input.note ?? "", created_at: now, updated_at: now, text: input.text, ...place(item.content_markdown ?? "", input) };
      await new HighlightsRepository(tx.kysely).insert(caller.accountId, row);
      await tx.refreshLists(caller.accountId, [itemId]);
      return row;
    });
    return { highlight: toDto(row) };
  }

  async update(caller: Caller, id: string, input: Partial<HighlightInput>) {
    const row = await this.items.transaction(async (tx) => {
      const repo = new HighlightsRepository(tx.kysely);
      const { h: current, item } = await this.visibleHighlight(tx, caller, id, { content: true, lock: true });
      const set: HighlightChange & { updated_at: number } = { updated_at: nowSeconds() };
      if (input.note !== undefined) set.note = input.note ?? "";
      const moved = ["text", "prefix", "suffix", "startOffset", "endOffset"].some((k) => (input as Record<string, unknown>)[k] !== undefined);
      if (moved) {
        const text = input.text ?? current.text;
        const offsetsGiven = input.startOffset !== undefined || input.endOffset !== undefined;
        Object.assign(
          set,
          { text },
          place(item.content_markdown ?? "", {
            text,
            prefix: input.prefix ?? (offsetsGiven ? undefined : current.prefix),
            suffix: input.suffix ?? (offsetsGiven ? undefined : current.suffix),
            startOffset: input.startOffset ?? (offsetsGiven ? (current.start_offset ?? undefined) : undefined),
            endOffset: input.endOffset ?? (offsetsGiven ? (current.end_offset ?? undefined) : undefined),
          }),
        );
      }
      await repo.update(caller.accountId, id, set);
      return (await repo.get(caller.accountId, id))!;
    });
    return { highlight: toDto(row) };
  }

  async delete(caller: Caller, id: string) {
    await this.items.transaction(async (tx) => {
      const { h } = await this.visibleHighlight(tx, caller, id, { lock: true });
      await new HighlightsRepository(tx.kysely).delete(caller.accountId, id);
      await tx.refreshLists(caller.accountId, [h.item_id]);
    });
    return { ok: true, id };
  }

  /**
   * Adds highlights to an item inside the caller's transaction (an import), each placed on `markdown` as `create`
   * places one; `createdAt` defaults to `now`. The caller refreshes the item's lists.
   */
  async addIn(tx: ItemsRepository, accountId: string, itemId: string, markdown: string, inputs: (HighlightInput & { createdAt?: number })[], now: number): Promise<void> {
    const rows = inputs.map(
      (h): HighlightRow => ({ id: newId(), item_id: itemId, note: h.note ?? "", created_at: h.createdAt ?? now, updated_at: now, text: h.text, ...place(markdown, h) }),
    );
    await new HighlightsRepository(tx.kysely).insertMany(accountId, rows);
  }

  /** The texts of an item's highlights. */
  textsOf(tx: ItemsRepository, accountId: string, itemId: string): Promise<Set<string>> {
    return new HighlightsRepository(tx.kysely).textsOf(accountId, itemId);
  }

  /** After new content, inside the capture's transaction: each highlight is found again by its text and anchors. */
  async reanchorIn(tx: ItemsRepository, accountId: string, itemId: string, markdown: string): Promise<void> {
    const repo = new HighlightsRepository(tx.kysely);
    for (let offset = 0; ; offset += 500) {
      const rows = await repo.listForItem(accountId, itemId, 500, offset);
      for (const h of rows) {
        const at = locate(markdown, { text: h.text, prefix: h.prefix, suffix: h.suffix });
        if (at?.start !== h.start_offset || at?.end !== h.end_offset) {
          await repo.update(accountId, h.id, { start_offset: at?.start ?? null, end_offset: at?.end ?? null, updated_at: nowSeconds() });
        }
      }
      if (rows.length < 500) return;
    }
  }
}

/** Offsets and anchors for a highlight: given offsets win when they hold the text; else the text is located. */
function place(markdown: string, h: HighlightInput): Pick<HighlightRow, "prefix" | "suffix" | "start_offset" | "end_offset"> {
  const { startOffset: s, endOffset: e } = h;
  if (s !== undefined && e !== undefined && e < s) {
    throw new AppError("validation_failed", "endOffset must not be before startOffset", { fields: { endOffset: "must be >= startOffset" } });
  }
  if (s !== undefined && e !== undefined && markdown.slice(s, e) === h.text) {
    const around = anchorsAt(markdown, s, e);
    return { prefix: h.prefix ?? around.prefix, suffix: h.suffix ?? around.suffix, start_offset: s, end_offset: e };
  }
  const at = locate(markdown, h);
  if (at) {
    const around = anchorsAt(markdown, at.start, at.end);
    return { prefix: h.prefix ?? around.prefix, suffix: h.suffix ?? around.suffix, start_offset: at.start, end_offset: at.end };
  }
  // Not in the current content (not extracted yet, or a browser-side selection): keep what the caller said.
  return { prefix: h.prefix ?? "", suffix: h.suffix ?? "", start_offset: s ?? null, end_offset: e ?? null };
}
