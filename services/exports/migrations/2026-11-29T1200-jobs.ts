// Export and import jobs, the failed entries of imports, and the background fetches imports leave behind.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  // One row per job of either kind. `caller` is the key that started it (its scope bounds an export); a lease
  // (`lease_until`, ms) marks the replica running it, so one interrupted by a restart is taken up again.
  await sql`create table exports.jobs (
    id text primary key,
    account_id text not null,
    kind text not null,
    status text not null,
    format text not null,
    params jsonb not null,
    caller jsonb not null,
    blob text,
    file_name text,
    size_bytes int8 not null default 0,
    item_count int8 not null default 0,
    entries int8 not null default 0,
    processed int8 not null default 0,
    created int8 not null default 0,
    present int8 not null default 0,
    failed int8 not null default 0,
    not_imported int8 not null default 0,
    stopped_by text,
    error text,
    attempts int4 not null default 0,
    lease_owner text,
    lease_until int8,
    created_at int8 not null,
    started_at int8,
    completed_at int8,
    expires_at int8
  )`.execute(db);
  await sql`create index jobs_by_account on exports.jobs (account_id, kind, created_at desc, id desc)`.execute(db);
  await sql`create index jobs_open on exports.jobs (created_at) where status in ('queued', 'running')`.execute(db);
  await sql`create index jobs_expiring on exports.jobs (expires_at) where blob is not null and kind = 'export'`.execute(db);
  await sql`create table exports.import_failures (
    job_id text not null references exports.jobs on delete cascade,
    seq int8 not null,
    idx int8 not null,
    url text,
    reason text not null,
    primary key (job_id, seq)
  )`.execute(db);
  // Pages to fetch for imported entries that came without content, at most one in flight per host and
  // `TROVE_IMPORT_HOST_GAP_MS` apart (fetch_hosts.next_at), across every replica.
  await sql`create table exports.fetches (
    job_id text not null references exports.jobs on delete cascade,
    item_id text not null,
    host text not null,
    state text not null,
    lease_until int8,
    reason text,
    primary key (job_id, item_id)
  )`.execute(db);
  await sql`create index fetches_waiting on exports.fetches (host, job_id, item_id) where state in ('pending', 'running')`.execute(db);
  await sql`create table exports.fetch_hosts (host text primary key, next_at int8 not null)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table exports.fetch_hosts, exports.fetches, exports.import_failures, exports.jobs`.execute(db);
}
