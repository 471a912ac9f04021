import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>) {
  // Secrets are kept as issued: signing needs them (Standard Webhooks is HMAC). Timestamps are Unix milliseconds.
  await sql`create table delivery.endpoints (
    id text primary key,
    account_id text not null,
    name text not null default '',
    url text not null,
    event_types jsonb not null,
    resource_scope jsonb,
    status text not null default 'enabled',
    secret text not null,
    previous_secret text,
    previous_secret_expires_at int8,
    consecutive_failures int4 not null default 0,
    disabled_at int8,
    created_at int8 not null,
    updated_at int8 not null
  )`.execute(db);
  await sql`create index endpoints_account on delivery.endpoints (account_id, created_at desc, id desc)`.execute(db);

  // One row per (endpoint, event): the message as it is sent on every attempt, its state and its lease.
  await sql`create table delivery.deliveries (
    id text primary key,
    account_id text not null,
    endpoint_id text not null references delivery.endpoints (id) on delete cascade,
    event_id text not null,
    type text not null,
    body text not null,
    status text not null default 'pending',
    attempts int4 not null default 0,
    last_status_code int4,
    last_error text,
    next_attempt_at int8,
    lease_until int8,
    lease_token text,
    created_at int8 not null,
    unique (endpoint_id, event_id)
  )`.execute(db);
  // What the dispatcher claims: each endpoint's due deliveries in order.
  await sql`create index deliveries_due on delivery.deliveries (endpoint_id, next_attempt_at) where status = 'pending'`.execute(db);
  await sql`create index deliveries_endpoint on delivery.deliveries (endpoint_id, created_at desc, id desc)`.execute(db);

  await sql`create table delivery.attempts (
    id text primary key,
    delivery_id text not null references delivery.deliveries (id) on delete cascade,
    attempt int4 not null,
    started_at int8 not null,
    duration_ms int4 not null,
    status_code int4,
    error text,
    message text
  )`.execute(db);
  await sql`create index attempts_delivery on delivery.attempts (delivery_id, started_at)`.execute(db);
}
