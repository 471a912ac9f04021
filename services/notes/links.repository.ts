// Every query of item links (a note's attachments to items and highlights). Kysely only; the owner's account id
// is part of every signature.
import { sql, type Kysely } from "kysely";

export type Relation = "source" | "evidence" | "example" | "inspiration" | "annotation";

export interface LinkRow {
  id: string;
  note_id: string;
  item_id: string;
  highlight_id: string | null;
  relation: Relation;
  annotation: string;
  created_at: number;
}

const columns = ["id", "note_id", "item_id", "highlight_id", "relation", "annotation", "created_at"] as const;

// int8 comes back as a string from pg.
const linkOf = (r: Record<string, unknown>): LinkRow => ({ ...(r as unknown as LinkRow), created_at: Number(r.created_at) });

export class LinksRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** True when the account has this note (archived or not). */
  async noteExists(accountId: string, noteId: string): Promise<boolean> {
    const row = await this.db.selectFrom("notes.notes").select("id").where("account_id", "=", accountId).where("id", "=", noteId).executeTakeFirst();
    return row !== undefined;
  }

  /** A note's links, oldest first; `limit` caps the page. */
  async forNote(accountId: string, noteId: string, limit?: number): Promise<LinkRow[]> {
    const rows = await this.db
      .selectFrom("notes.item_links")
      .select([...columns])
      .where("account_id", "=", accountId)
      .where("note_id", "=", noteId)
      .orderBy("created_at")
      .orderBy("id")
      .$if(limit !== undefined, (q) => q.limit(limit!))
      .execute();
    return rows.map(linkOf);
  }

  async countForNote(accountId: string, noteId: string): Promise<number> {
    const row = await this.db
      .selectFrom("notes.item_links")
      .select(sql<string>`count(*)`.as("n"))
      .where("account_id", "=", accountId)
      .where("note_id", "=", noteId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Inserts the link; undefined when the same attachment (note, item, highlight, relation) exists already. */
  async insert(accountId: string, link: LinkRow): Promise<LinkRow | undefined> {
    const row = await this.db
      .insertInto("notes.item_links")
      .values({ ...link, account_id: accountId })
      // The unique index on (note, item, coalesce(highlight, ''), relation) decides, also between concurrent inserts.
      .onConflict((oc) => oc.doNothing())
      .returning([...columns])
      .executeTakeFirst();
    return row && linkOf(row);
  }

  /** The link that makes this attachment. */
  async same(accountId: string, a: { noteId: string; itemId: string; highlightId: string | null; relation: Relation }): Promise<LinkRow | undefined> {
    const row = await this.db
      .selectFrom("notes.item_links")
      .select([...columns])
      .where("account_id", "=", accountId)
      .where("note_id", "=", a.noteId)
      .where("item_id", "=", a.itemId)
      .where(sql<boolean>`coalesce(highlight_id, '') = ${a.highlightId ?? ""}`)
      .where("relation", "=", a.relation)
      .executeTakeFirst();
    return row && linkOf(row);
  }

  async delete(accountId: string, noteId: string, linkId: string): Promise<boolean> {
    const res = await this.db
      .deleteFrom("notes.item_links")
      .where("account_id", "=", accountId)
      .where("note_id", "=", noteId)
      .where("id", "=", linkId)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** Links of current (not archived) notes to an item, newest first, with the note's title. */
  async forItem(accountId: string, itemId: string, limit: number): Promise<(LinkRow & { title: string })[]> {
    const rows = await this.db
      .selectFrom("notes.item_links as l")
      .innerJoin("notes.notes as n", "n.id", "l.note_id")
      .select(["l.id", "l.note_id", "l.item_id", "l.highlight_id", "l.relation", "l.annotation", "l.created_at", "n.title"])
      .where("l.account_id", "=", accountId)
      .where("l.item_id", "=", itemId)
      .where("n.account_id", "=", accountId)
      .where("n.archived_at", "is", null)
      .orderBy("l.created_at", "desc")
      .orderBy("l.id", "desc")
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...linkOf(r), title: r.title as string }));
  }
}
