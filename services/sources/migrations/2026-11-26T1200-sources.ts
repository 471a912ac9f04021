// Sources and their event log. One row per source; `target` is what it follows, normalised, so an equal source is
// found by the unique index instead of being created twice (an inbox's target is its own fresh address: never equal).
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table sources.sources (
    id text primary key,
    account_id text not null,
    type text not null,
    name text not null,
    status text not null,
    target text not null,
    inbox_address text unique,
    poll_every_min int4 not null,
    next_poll_at int8,
    last_run_at int8,
    last_success_at int8,
    last_error text,
    consecutive_failures int4 not null default 0,
    item_count int8 not null default 0,
    config jsonb not null,
    settings jsonb not null,
    cursors jsonb not null default '{}',
    created_at int8 not null,
    updated_at int8 not null
  )`.execute(db);
  await sql`create unique index sources_equal on sources.sources (account_id, type, target)`.execute(db);
  await sql`create index sources_by_account on sources.sources (account_id, created_at desc, id desc)`.execute(db);
  await sql`create index sources_due on sources.sources (next_poll_at) where status = 'syncing'`.execute(db);
  await sql`create table sources.source_events (
    id text primary key,
    source_id text not null references sources.sources (id) on delete cascade,
    account_id text not null,
    type text not null,
    at int8 not null,
    items_added int4 not null default 0,
    message text,
    detail jsonb not null default '{}'
  )`.execute(db);
  await sql`create index source_events_newest on sources.source_events (source_id, at desc, id desc)`.execute(db);
}
