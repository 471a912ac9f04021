// Webhook deliveries run on the work queue (`delivery.queue`, made before this migration): each pending delivery
// becomes a job with its id, in its endpoint's group, due when its next attempt was; a paused endpoint's group is
// paused. The leases kept on the deliveries go, since the queue keeps them now. Queue names and run limits are
// written here as they were when this ran. Every process sending deliveries must be stopped before this runs.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`(extract(epoch from clock_timestamp()) * 1000)::int8`;
  // A delivery's job counts the attempts it has had as runs (a delivery has at most five attempts; its job may run
  // ten times, the rest for runs cut short).
  await sql`insert into delivery.queue (id, queue, group_key, account_id, payload, state, attempts, max_attempts, run_at, created_at, updated_at)
    select id, 'webhook', endpoint_id, account_id, jsonb_build_object('endpointId', endpoint_id), 'queued', attempts, 10,
        coalesce(next_attempt_at, ${now}), ${now}, ${now}
      from delivery.deliveries where status = 'pending'`.execute(db);
  await sql`insert into delivery.queue_groups (queue, group_key, paused)
    select 'webhook', id, true from delivery.endpoints where status = 'paused'`.execute(db);
  await sql`drop index delivery.deliveries_due`.execute(db);
  await sql`alter table delivery.deliveries drop column lease_until, drop column lease_token`.execute(db);
}
