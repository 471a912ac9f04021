// Item links: a note's attachments to items and highlights. The items service is asked over the bus, as the
// caller, whether the item (and highlight) exists for that account and key; links never make note revisions.
import type { Bus } from "@trove/bus";
import { holds, itemRefsSubject, type Caller, type ItemNotesReply, type ItemRefsReply, type ItemRefsRequest } from "@trove/contracts";
import { newId, nowSeconds } from "@trove/db";
import { AppError } from "@trove/errors";
import { callerHeaders } from "@trove/host";
import type { LinkRow, LinksRepository, Relation } from "./links.repository.ts";
import { bareNoteId } from "./note-shapes.ts";

export interface LinkDto {
  id: string;
  itemId: string;
  highlightId: string | null;
  relation: Relation;
  annotation: string;
  createdAt: number;
}

/** Links one note may hold: its reads (GET /api/notes/:id lists them all) stay bounded. */
export const maxLinksPerNote = 1_000;
/** Notes the item read shows at most. */
export const maxNotesPerItem = 100;
/** How long a link write waits for the items service. */
const itemsTimeoutMs = 10_000;

export const linkDto = (r: LinkRow): LinkDto => ({
  id: r.id,
  itemId: r.item_id,
  highlightId: r.highlight_id,
  relation: r.relation,
  annotation: r.annotation,
  createdAt: r.created_at,
});

export class LinksService {
  constructor(
    private readonly repo: LinksRepository,
    private readonly bus: Bus,
  ) {}

  /** The links of one note, oldest first (GET /api/notes/:id shows them). */
  async forNote(accountId: string, noteId: string): Promise<LinkDto[]> {
    return (await this.repo.forNote(accountId, noteId)).map(linkDto);
  }

  /** Attaches an item (or one of its highlights); the same attachment again answers the existing link. */
  async create(
    caller: Caller,
    rawNoteId: string,
    body: { itemId: string; highlightId?: string; relation?: Relation; annotation?: string },
    requestId?: string,
  ): Promise<{ link: LinkDto; existing: boolean }> {
    const noteId = bareNoteId(rawNoteId);
    if (!(await this.repo.noteExists(caller.accountId, noteId))) throw new AppError("not_found", "note not found");
    const attachment = { noteId, itemId: body.itemId, highlightId: body.highlightId ?? null, relation: body.relation ?? "source" };
    const found = await this.repo.same(caller.accountId, attachment);
    if (found) return { link: linkDto(found), existing: true };

    await this.checkWithItems(caller, attachment.itemId, attachment.highlightId, requestId);
    if ((await this.repo.countForNote(caller.accountId, noteId)) >= maxLinksPerNote) {
      throw new AppError("invalid_state", `a note holds at most ${maxLinksPerNote} item links`, { limit: maxLinksPerNote });
    }
    const inserted = await this.repo.insert(caller.accountId, {
      id: newId(),
      note_id: noteId,
      item_id: attachment.itemId,
      highlight_id: attachment.highlightId,
      relation: attachment.relation,
      annotation: body.annotation ?? "",
      created_at: nowSeconds(),
    });
    if (inserted) return { link: linkDto(inserted), existing: false };
    // A concurrent request made the same attachment first (the unique index let one of them in): that link.
    const same = await this.repo.same(caller.accountId, attachment);
    if (!same) throw new AppError("internal_error", "a link that conflicted is gone");
    return { link: linkDto(same), existing: true };
  }

  async delete(caller: Caller, rawNoteId: string, linkId: string): Promise<{ ok: true; id: string }> {
    if (!(await this.repo.delete(caller.accountId, bareNoteId(rawNoteId), linkId))) throw new AppError("not_found", "item link not found");
    return { ok: true, id: linkId };
  }

  /** notes.internal.itemNotes: the current notes linking an item (GET /api/items/:id shows them), newest link first. */
  async forItem(caller: Caller, itemId: unknown): Promise<ItemNotesReply> {
    // The items service asks only for callers holding notes.read; checked again here, where the notes are.
    if (!holds(caller, "notes.read", "GET")) return { notes: [] };
    if (typeof itemId !== "string" || itemId.length === 0 || itemId.length > 200) {
      throw new AppError("validation_failed", "itemNotes: itemId must be an id", { fields: { itemId: "must be an id" } });
    }
    const rows = await this.repo.forItem(caller.accountId, itemId, maxNotesPerItem);
    return { notes: rows.map((r) => ({ id: r.note_id, title: r.title, relation: r.relation, linkId: r.id })) };
  }

  /** 404 unless the caller may see the item (and the highlight is one of that item's). */
  private async checkWithItems(caller: Caller, itemId: string, highlightId: string | null, requestId?: string) {
    const request: ItemRefsRequest = { itemIds: [itemId], highlightIds: highlightId ? [highlightId] : [] };
    const reply = (await this.bus.request(itemRefsSubject, request, { timeoutMs: itemsTimeoutMs, headers: callerHeaders(caller, requestId) })) as ItemRefsReply;
    if (!reply.items.some((i) => i.id === itemId)) throw new AppError("not_found", "item not found");
    if (highlightId && !reply.highlights.some((h) => h.id === highlightId && h.itemId === itemId)) {
      throw new AppError("not_found", "highlight not found on this item");
    }
  }
}
