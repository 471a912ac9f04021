// The work queue's tables, made in the schema of each service that keeps jobs (bound migration: `schema` is the
// service's). Times are milliseconds since the epoch.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>, schema: string): Promise<void> {
  const queue = sql.id(schema, "queue");
  const groups = sql.id(schema, "queue_groups");
  // One row per job. `lease_token` is given per claim (not per process), so a worker whose job was taken over
  // can tell; `attempts` counts runs started (a release on stop gives one back).
  await sql`create table ${queue} (
    id text primary key,
    queue text not null,
    key text,
    group_key text,
    account_id text,
    payload jsonb not null,
    state text not null,
    attempts int4 not null default 0,
    max_attempts int4 not null,
    run_at int8 not null,
    lease_token text,
    lease_until int8,
    last_error text,
    created_at int8 not null,
    updated_at int8 not null
  )`.execute(db);
  await sql`create index queue_due on ${queue} (queue, run_at) where state = 'queued'`.execute(db);
  await sql`create index queue_leased on ${queue} (queue, lease_until) where state = 'running'`.execute(db);
  // One open job per (queue, key): a source has one poll waiting, not one per enqueue.
  await sql`create unique index queue_key on ${queue} (queue, key) where key is not null and state in ('queued', 'running')`.execute(db);
  await sql`create index queue_groups_open on ${queue} (queue, group_key, run_at) where group_key is not null and state in ('queued', 'running')`.execute(db);
  await sql`create index queue_finished on ${queue} (state, updated_at) where state in ('done', 'failed')`.execute(db);
  // What a group holds besides its jobs: paused, and the earliest time its next job may start (a gap between two).
  // A row at its defaults says nothing, so one is made only when a group is paused or has a gap.
  await sql`create table ${groups} (
    queue text not null,
    group_key text not null,
    paused boolean not null default false,
    next_at int8 not null default 0,
    primary key (queue, group_key)
  )`.execute(db);
}
