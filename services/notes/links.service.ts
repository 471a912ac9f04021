// Item links: a note's attachments to items and highlights, checked with the items service over the bus. (Stub.)
import type { Caller, ItemNotesReply } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { Kysely } from "kysely";

export interface LinkDto {
  id: string;
  itemId: string;
  highlightId: string | null;
  relation: "source" | "evidence" | "example" | "inspiration" | "annotation";
  annotation: string;
  createdAt: number;
}

export class LinksService {
  constructor(private readonly db: Kysely<any>) {}

  /** The links of one note, oldest first (GET /api/notes/:id shows them). */
  async forNote(accountId: string, noteId: string): Promise<LinkDto[]> {
    const rows = await this.db
      .selectFrom("notes.item_links")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("note_id", "=", noteId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map((r) => ({
      id: r.id,
      itemId: r.item_id,
      highlightId: r.highlight_id,
      relation: r.relation,
      annotation: r.annotation,
      createdAt: Number(r.created_at),
    }));
  }

  async create(_caller: Caller, _noteId: string, _body: unknown): Promise<never> {
    throw new AppError("internal_error", "item links are not built yet");
  }
  async delete(_caller: Caller, _noteId: string, _linkId: string): Promise<never> {
    throw new AppError("internal_error", "item links are not built yet");
  }
  async forItem(_caller: Caller, _itemId: string): Promise<ItemNotesReply> {
    return { notes: [] };
  }
}
