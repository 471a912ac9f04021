// The note event outbox: one row per revision, written in the write's transaction and removed once published.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table notes.note_events (
    id text primary key,
    account_id text not null,
    note_id text not null,
    type text not null,
    revision int4 not null,
    operation text not null,
    changed_at int8 not null
  )`.execute(db);
  await sql`create index note_events_oldest on notes.note_events (changed_at, id)`.execute(db);
}
