// Media of items: captured web images and uploaded ones. Kysely only; the account id in every signature.
import type { Kysely } from "kysely";

export interface MediaRow {
  id: string;
  item_id: string;
  position: number;
  kind: "web" | "upload";
  url: string;
  alt: string;
  title: string;
  width: number | null;
  height: number | null;
  blob_key: string | null;
  content_type: string | null;
  size: number | null;
  created_at: number;
}

export class MediaRepository {
  private readonly db: Kysely<any>;
  constructor(root: Kysely<any>) {
    this.db = root;
  }

  /** Replaces an item's captured web images (uploads stay, after them). */
  async replaceWeb(accountId: string, itemId: string, rows: Omit<MediaRow, "item_id">[]): Promise<void> {
    await this.db.deleteFrom("items.media").where("account_id", "=", accountId).where("item_id", "=", itemId).where("kind", "=", "web").execute();
    if (rows.length > 0) {
      await this.db
        .insertInto("items.media")
        .values(rows.map((r) => ({ ...r, account_id: accountId, item_id: itemId })))
        .execute();
    }
  }

  async insert(accountId: string, row: MediaRow): Promise<void> {
    await this.db.insertInto("items.media").values({ ...row, account_id: accountId }).execute();
  }

  async nextPosition(accountId: string, itemId: string): Promise<number> {
    const row = await this.db
      .selectFrom("items.media")
      .select((eb) => eb.fn.max<number | null>("position").as("p"))
      .where("account_id", "=", accountId)
      .where("item_id", "=", itemId)
      .executeTakeFirst();
    return (row?.p ?? -1) + 1;
  }

  async page(accountId: string, itemId: string, limit: number, offset: number): Promise<{ rows: MediaRow[]; total: number }> {
    const base = this.db.selectFrom("items.media").where("account_id", "=", accountId).where("item_id", "=", itemId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy("position").orderBy("id").limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows as MediaRow[], total: count.n };
  }

  async get(accountId: string, itemId: string, id: string): Promise<MediaRow | undefined> {
    return (await this.db
      .selectFrom("items.media")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("item_id", "=", itemId)
      .where("id", "=", id)
      .executeTakeFirst()) as MediaRow | undefined;
  }

  async blobKeysOfItems(accountId: string, itemIds: string[]): Promise<string[]> {
    if (itemIds.length === 0) return [];
    const rows = await this.db
      .selectFrom("items.media")
      .select("blob_key")
      .where("account_id", "=", accountId)
      .where("item_id", "in", itemIds)
      .where("blob_key", "is not", null)
      .execute();
    return rows.map((r) => r.blob_key as string);
  }
}
