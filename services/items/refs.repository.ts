// The reads behind items.internal.itemRefs: the start of some items' Markdown and some highlights, cut in the
// database so a long document or highlight never travels whole. Kysely only; the account id in every signature.
import { sql, type Kysely } from "kysely";

export interface HighlightHead {
  id: string;
  item_id: string;
  /** At most `chars` characters of the highlight's text and note. */
  text: string;
  note: string;
}

export interface ExcerptRow {
  id: string;
  /** The first `chars` characters of the Markdown; null when the item has none. */
  head: string | null;
  /** The whole Markdown's size in UTF-8 bytes. */
  bytes: number;
}

const ids = (list: string[], column: string) => sql<boolean>`${sql.ref(column)} = any(${list}::text[])`;

export class RefsRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** The first `chars` characters of each item's Markdown, with its full size. */
  async excerpts(accountId: string, itemIds: string[], chars: number): Promise<ExcerptRow[]> {
    if (itemIds.length === 0) return [];
    const rows = await this.db
      .selectFrom("items.items")
      .select(["id", sql<string | null>`left(content_markdown, ${chars})`.as("head"), sql<number>`coalesce(octet_length(content_markdown), 0)`.as("bytes")])
      .where("account_id", "=", accountId)
      .where(ids(itemIds, "id"))
      .execute();
    return rows.map((r) => ({ id: r.id as string, head: r.head as string | null, bytes: Number(r.bytes) }));
  }

  /** These highlights of the account (text and note cut at `chars` characters). */
  async highlights(accountId: string, highlightIds: string[], chars: number): Promise<HighlightHead[]> {
    if (highlightIds.length === 0) return [];
    return (await this.db
      .selectFrom("items.highlights")
      .select(["id", "item_id", sql<string>`left(text, ${chars})`.as("text"), sql<string>`left(note, ${chars})`.as("note")])
      .where("account_id", "=", accountId)
      .where(ids(highlightIds, "id"))
      .execute()) as HighlightHead[];
  }

  /** The first `perItem` highlights of each item, in creation order. */
  async firstHighlights(accountId: string, itemIds: string[], perItem: number, chars: number): Promise<HighlightHead[]> {
    if (itemIds.length === 0 || perItem <= 0) return [];
    const ranked = this.db
      .selectFrom("items.highlights")
      .select([
        "id",
        "item_id",
        "created_at",
        sql<string>`left(text, ${chars})`.as("text"),
        sql<string>`left(note, ${chars})`.as("note"),
        sql<number>`row_number() over (partition by item_id order by created_at, id)`.as("rank"),
      ])
      .where("account_id", "=", accountId)
      .where(ids(itemIds, "item_id"))
      .as("h");
    return (await this.db
      .selectFrom(ranked)
      .select(["id", "item_id", "text", "note"])
      .where("rank", "<=", perItem)
      .orderBy("item_id")
      .orderBy("created_at")
      .orderBy("id")
      .execute()) as HighlightHead[];
  }
}
