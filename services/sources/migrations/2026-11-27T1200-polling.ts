// Polling: a lease on each source (which replica is running it, and until when), and the entries each source has
// seen, so an entry becomes at most one item however often the feed is read or a run is retried.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table sources.sources add column lease_owner text, add column lease_until int8`.execute(db);
  await sql`create table sources.entries (
    source_id text not null references sources.sources (id) on delete cascade,
    entry_key text not null,
    item_id text,
    seen_at int8 not null,
    primary key (source_id, entry_key)
  )`.execute(db);
}
