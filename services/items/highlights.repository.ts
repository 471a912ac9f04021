// Highlights of items. Kysely only; the account id in every signature.
import { sql, type Kysely } from "kysely";

export interface HighlightRow {
  id: string;
  item_id: string;
  text: string;
  prefix: string;
  suffix: string;
  note: string;
  start_offset: number | null;
  end_offset: number | null;
  created_at: number;
  updated_at: number;
}

export type HighlightChange = Partial<Pick<HighlightRow, "text" | "prefix" | "suffix" | "note" | "start_offset" | "end_offset">>;

const columns = ["id", "item_id", "text", "prefix", "suffix", "note", "start_offset", "end_offset", "created_at", "updated_at"] as const;

export class HighlightsRepository {
  private readonly db: Kysely<any>;
  constructor(root: Kysely<any>) {
    this.db = root;
  }

  async insert(accountId: string, h: HighlightRow): Promise<void> {
    await this.db.insertInto("items.highlights").values({ ...h, account_id: accountId }).execute();
  }

  async get(accountId: string, id: string): Promise<HighlightRow | undefined> {
    return (await this.db.selectFrom("items.highlights").select([...columns]).where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst()) as
      | HighlightRow
      | undefined;
  }

  /** A page of an item's highlights in creation order; one extra row tells whether more follow. */
  async listForItem(accountId: string, itemId: string, limit: number, offset: number): Promise<HighlightRow[]> {
    return (await this.db
      .selectFrom("items.highlights")
      .select([...columns])
      .where("account_id", "=", accountId)
      .where("item_id", "=", itemId)
      .orderBy("created_at")
      .orderBy("id")
      .limit(limit)
      .offset(offset)
      .execute()) as HighlightRow[];
  }

  /** Highlights of several items (an export page), in each item's creation order: one query, not one per item. */
  async listForItems(accountId: string, itemIds: string[]): Promise<HighlightRow[]> {
    if (itemIds.length === 0) return [];
    return (await this.db
      .selectFrom("items.highlights")
      .select([...columns])
      .where("account_id", "=", accountId)
      .where(sql<boolean>`item_id = any(${itemIds}::text[])`)
      .orderBy("item_id")
      .orderBy("created_at")
      .orderBy("id")
      .execute()) as HighlightRow[];
  }

  /** The texts of an item's highlights (an import adds only highlights whose text the item lacks). */
  async textsOf(accountId: string, itemId: string): Promise<Set<string>> {
    const rows = await this.db.selectFrom("items.highlights").select("text").where("account_id", "=", accountId).where("item_id", "=", itemId).execute();
    return new Set(rows.map((r) => r.text as string));
  }

  async insertMany(accountId: string, rows: HighlightRow[]): Promise<void> {
    // 12 parameters a row: 500 rows stay far below the 65,535 a statement may bind.
    for (let i = 0; i < rows.length; i += 500) {
      await this.db.insertInto("items.highlights").values(rows.slice(i, i + 500).map((h) => ({ ...h, account_id: accountId }))).execute();
    }
  }

  async update(accountId: string, id: string, set: HighlightChange & { updated_at: number }): Promise<void> {
    await this.db.updateTable("items.highlights").set(set).where("account_id", "=", accountId).where("id", "=", id).execute();
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const res = await this.db.deleteFrom("items.highlights").where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
