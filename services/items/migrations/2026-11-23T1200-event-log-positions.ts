// The change stream's order: a position given to each event once its transaction has committed (in commit order),
// so a reader walking positions never skips a row that committed late. Published rows are found by position.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table items.item_events add column position int8`.execute(db);
  await sql`create unique index item_events_position on items.item_events (position)`.execute(db);
  await sql`create index item_events_account_position on items.item_events (account_id, position) where position is not null`.execute(db);
  await sql`create index item_events_account_changed on items.item_events (account_id, changed_at) where position is not null`.execute(db);
  await sql`create index item_events_unpositioned on items.item_events (seq) where position is null`.execute(db);
  await sql`drop index items.item_events_unpublished`.execute(db);
  await sql`create index item_events_unpublished on items.item_events (position) where published_at is null and position is not null`.execute(db);
}
