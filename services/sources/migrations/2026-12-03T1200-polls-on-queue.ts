// Source polls move onto the work queue (`sources.queue`, made by the queue library's own migrations before this
// one): every syncing source that has a next poll gets its `source-poll` job, due when the source was due, and the
// lease columns the scheduler claimed sources with go. Which replica runs a poll, and until when, is the queue's.
// A source leased by a process that stopped mid-run is simply due again.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  // The queue's row shape (libs/jobs) as of its first migration; 5 runs is the poll queue's maxAttempts.
  await sql`insert into sources.queue (id, queue, key, group_key, account_id, payload, state, attempts, max_attempts, run_at, created_at, updated_at)
    select gen_random_uuid()::text, 'source-poll', s.id, null, s.account_id, jsonb_build_object('sourceId', s.id), 'queued', 0, 5,
      s.next_poll_at * 1000, (extract(epoch from now()) * 1000)::int8, (extract(epoch from now()) * 1000)::int8
    from sources.sources s
    where s.status = 'syncing' and s.next_poll_at is not null
    on conflict do nothing`.execute(db);
  await sql`drop index if exists sources.sources_due`.execute(db);
  await sql`alter table sources.sources drop column lease_owner, drop column lease_until`.execute(db);
}
