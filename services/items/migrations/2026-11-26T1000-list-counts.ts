// List pages at 100k items (docs/decisions.md, "Search"): a page's `count` is read from indexes alone. The
// account's items by status (with their ids, for joining a tag's items), and a tag's items in item_tags'
// (tag_id, item_id), which replaces the index on tag_id alone.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index items_account_status on items.items (account_id, status) include (id)`.execute(db);
  await sql`create index item_tags_tag_item on items.item_tags (tag_id, item_id)`.execute(db);
  await sql`drop index items.item_tags_tag`.execute(db);
}
