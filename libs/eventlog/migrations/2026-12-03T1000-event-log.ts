// The positioned event log of a database: events recorded in the transaction of the change they announce, a
// position given after commit in commit order, and the embedded consumers' stored positions.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table eventlog.events (
    seq bigserial primary key,
    position int8 unique,
    id text not null unique,
    stream text not null,
    subject text not null,
    account_id text not null,
    key text,
    at int8 not null,
    data jsonb not null,
    published_at int8
  )`.execute(db);
  await sql`create index events_unpositioned on eventlog.events (seq) where position is null`.execute(db);
  await sql`create index events_unpublished on eventlog.events (position) where published_at is null and position is not null`.execute(db);
  await sql`create index events_stream_position on eventlog.events (stream, position) where position is not null`.execute(db);
  await sql`create index events_account_position on eventlog.events (stream, account_id, position) where position is not null`.execute(db);
  await sql`create index events_account_at on eventlog.events (stream, account_id, at) where position is not null`.execute(db);
  await sql`create index events_account_key on eventlog.events (account_id, key, subject)`.execute(db);

  // Consumers that read the log themselves (the in-process deployment); JetStream keeps its own consumers.
  await sql`create table eventlog.consumers (
    name text primary key,
    position int8 not null default 0,
    owner text,
    lease_until int8,
    updated_at int8 not null
  )`.execute(db);

  await sql`create table eventlog.meta (k text primary key, v int8 not null)`.execute(db);
  // Upgrade shim, run once: an installation whose items kept their own positioned log goes on numbering after it,
  // so a change-stream cursor taken before the move keeps its meaning once those rows are adopted.
  await sql`
    do $$ begin
      if exists (select 1 from information_schema.columns
                  where table_schema = 'items' and table_name = 'item_events' and column_name = 'position') then
        insert into eventlog.meta (k, v) select 'position_floor', coalesce(max(position), 0) from items.item_events;
      end if;
    end $$`.execute(db);
}
