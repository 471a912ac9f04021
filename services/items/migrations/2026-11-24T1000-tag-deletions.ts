// Deleted tags waiting to be announced (tag.deleted): written in the transaction that deletes the tag, so the
// announcement survives a crash or a bus outage right after the commit. A row goes once it is published.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table items.tag_deletions (
    id text primary key,
    account_id text not null,
    slug text not null,
    deleted_at int8 not null
  )`.execute(db);
  await sql`create index tag_deletions_oldest on items.tag_deletions (deleted_at, id)`.execute(db);
}
