// Data portability (issue 11). Exports page through an account's items in id order: (account_id, id) walks one
// account's items from a keyset position, where the primary key alone would step over every other account's.
// A capture asked for an item that is no longer there tells "deleted" from "never existed" by its item.deleted
// event (the outbox keeps every event): a small partial index finds it without reading the account's events.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index items_account_id on items.items (account_id, id)`.execute(db);
  await sql`create index item_events_deleted on items.item_events (account_id, item_id) where type = 'item.deleted'`.execute(db);
}
