// Export and import jobs, the pages imports leave to fetch and the expiry of export files run on the work queue
// (`exports.queue`, made before this migration). Open work moves into it as it stands; the leases, attempt counts
// and per-host times kept beside the domain rows go, since the queue keeps them now. Queue names and attempt limits
// are written here as they were when this ran.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`(extract(epoch from clock_timestamp()) * 1000)::int8`;
  // An open job keeps its id and the runs it has had; one a stopped replica left running waits again (its run is
  // counted, so one interrupted for the third time fails as such at its next claim).
  await sql`insert into exports.queue (id, queue, account_id, payload, state, attempts, max_attempts, run_at, created_at, updated_at)
    select id, kind, account_id, jsonb_build_object('jobId', id), 'queued', attempts, 3, ${now}, ${now}, ${now}
      from exports.jobs where status in ('queued', 'running')`.execute(db);
  await sql`update exports.jobs set status = 'queued' where status = 'running'`.execute(db);
  // One job per page still to fetch, in its host's group; a host's gap still running goes with it.
  await sql`insert into exports.queue (id, queue, group_key, account_id, payload, state, attempts, max_attempts, run_at, created_at, updated_at)
    select gen_random_uuid()::text, 'page-fetch', f.host, j.account_id, jsonb_build_object('jobId', f.job_id, 'itemId', f.item_id, 'host', f.host),
        'queued', 0, 5, ${now}, ${now}, ${now}
      from exports.fetches f join exports.jobs j on j.id = f.job_id where f.state in ('pending', 'running')`.execute(db);
  await sql`update exports.fetches set state = 'pending' where state = 'running'`.execute(db);
  await sql`insert into exports.queue_groups (queue, group_key, next_at)
    select 'page-fetch', host, next_at from exports.fetch_hosts where next_at > ${now}`.execute(db);
  // Each export file still kept is deleted by a job due when it expires.
  await sql`insert into exports.queue (id, queue, account_id, payload, state, attempts, max_attempts, run_at, created_at, updated_at)
    select gen_random_uuid()::text, 'export-expiry', account_id, jsonb_build_object('jobId', id), 'queued', 0, 10, expires_at * 1000, ${now}, ${now}
      from exports.jobs where kind = 'export' and blob is not null and expires_at is not null`.execute(db);

  await sql`drop table exports.fetch_hosts`.execute(db);
  await sql`drop index exports.jobs_open`.execute(db);
  await sql`drop index exports.fetches_waiting`.execute(db);
  await sql`alter table exports.jobs drop column attempts, drop column lease_owner, drop column lease_until`.execute(db);
  await sql`alter table exports.fetches drop column lease_until`.execute(db);
}
