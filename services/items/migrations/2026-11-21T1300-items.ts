import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>) {
  await sql`create table items.items (
    id text primary key,
    account_id text not null,
    url text not null,
    url_hash text not null,
    title text not null default '',
    favicon text not null default '',
    status text not null default 'stashed',
    times_added int4 not null default 1,
    notes text not null default '',
    source text,
    created_at int8 not null,
    updated_at int8 not null,
    last_seen_at int8 not null,
    processed_at int8,
    content_key text,
    content_size int4 not null default 0,
    content_truncated boolean not null default false,
    content_source text,
    content_extracted_at int8,
    content_extract_error text,
    content_markdown text,
    content jsonb,
    unique (account_id, url_hash)
  )`.execute(db);
  await sql`create index items_account_created on items.items (account_id, created_at desc, id desc)`.execute(db);

  // The outbox: written in the same transaction as each change; a relay publishes it and the change stream reads it.
  await sql`create table items.item_events (
    seq bigserial primary key,
    id text not null unique,
    account_id text not null,
    type text not null,
    item_id text not null,
    changed_at int8 not null,
    before_scope jsonb,
    after_scope jsonb,
    payload jsonb not null,
    published_at int8
  )`.execute(db);
  await sql`create index item_events_account_seq on items.item_events (account_id, seq)`.execute(db);
  await sql`create index item_events_unpublished on items.item_events (seq) where published_at is null`.execute(db);

  // Items added per account and period ('lifetime' or 'YYYY-MM'); deleting an item does not give a link back.
  await sql`create table items.usage (
    account_id text not null,
    period text not null,
    count int8 not null default 0,
    primary key (account_id, period)
  )`.execute(db);
}
