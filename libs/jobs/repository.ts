// The work queue's statements on `<schema>.queue` and `<schema>.queue_groups`. Every method takes the handle to run
// on: the root database, or a unit of work's transaction. Times are milliseconds.
import { sql, type Kysely, type RawBuilder } from "kysely";

export type JobState = "queued" | "running" | "done" | "failed";

export interface QueueRow {
  id: string;
  queue: string;
  key: string | null;
  group_key: string | null;
  account_id: string | null;
  payload: unknown;
  state: JobState;
  attempts: number;
  max_attempts: number;
  run_at: number;
  lease_token: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface NewJob {
  id: string;
  queue: string;
  key: string | null;
  group: string | null;
  accountId: string | null;
  payload: unknown;
  maxAttempts: number;
  runAt: number;
  /** Set for a job inserted already claimed (work begun in a request). */
  lease?: { token: string; until: number };
}

export interface QueueCounts {
  /** Waiting, due or not. */
  queued: number;
  /** Waiting and due now (not held by a paused group). */
  due: number;
  running: number;
  /** Running under a lease that ran out: its worker died or lost the database; another worker takes it over. */
  leaseExpired: number;
  /** Failed for good and not yet swept (30 days). */
  failed: number;
}

/** One queue's open jobs, for the queue-depth gauge. */
export interface QueueDepth {
  queue: string;
  queued: number;
  due: number;
  running: number;
}

/** Statements per insert: 1,000 rows of 13 values stay far below PostgreSQL's 65,535 parameters. */
const insertChunk = 1_000;

export class QueueRepository {
  readonly table: RawBuilder<unknown>;
  readonly groups: RawBuilder<unknown>;

  constructor(readonly schema: string) {
    this.table = sql.id(schema, "queue");
    this.groups = sql.id(schema, "queue_groups");
  }

  /**
   * Inserts jobs. A job whose key already has an open job is not added: the open one stays (payload and all) and
   * runs no later than the new one asked (a waiting job is moved sooner; a running one is left as it is).
   */
  async insert(db: Kysely<any>, jobs: NewJob[], now: number): Promise<void> {
    for (let i = 0; i < jobs.length; i += insertChunk) {
      const rows = sql.join(
        jobs.slice(i, i + insertChunk).map(
          (j) =>
            sql`(${j.id}, ${j.queue}, ${j.key}, ${j.group}, ${j.accountId}, ${JSON.stringify(j.payload ?? null)}::jsonb, ${j.lease ? "running" : "queued"},
              ${j.lease ? 1 : 0}::int4, ${j.maxAttempts}::int4, ${j.runAt}::int8, ${j.lease?.token ?? null}::text, ${j.lease?.until ?? null}::int8, ${now}::int8, ${now}::int8)`,
        ),
      );
      await sql`insert into ${this.table} (id, queue, key, group_key, account_id, payload, state, attempts, max_attempts, run_at, lease_token, lease_until, created_at, updated_at)
        values ${rows}
        on conflict (queue, key) where key is not null and state in ('queued', 'running')
        do update set run_at = least(${this.table}.run_at, excluded.run_at), updated_at = excluded.updated_at
          where ${this.table}.state = 'queued'`.execute(db);
    }
  }

  /** Inserts one job already claimed; false when its key has an open job (nothing inserted). */
  async insertClaimed(db: Kysely<any>, job: NewJob & { lease: { token: string; until: number } }, now: number): Promise<boolean> {
    const { rows } = await sql<{ id: string }>`insert into ${this.table}
        (id, queue, key, group_key, account_id, payload, state, attempts, max_attempts, run_at, lease_token, lease_until, created_at, updated_at)
      values (${job.id}, ${job.queue}, ${job.key}, ${job.group}, ${job.accountId}, ${JSON.stringify(job.payload ?? null)}::jsonb, 'running', 1,
        ${job.maxAttempts}::int4, ${job.runAt}::int8, ${job.lease.token}, ${job.lease.until}::int8, ${now}::int8, ${now}::int8)
      on conflict (queue, key) where key is not null and state in ('queued', 'running') do nothing
      returning id`.execute(db);
    return rows.length === 1;
  }

  /** The id of the open job with this key, if any. */
  async openWithKey(db: Kysely<any>, queue: string, key: string): Promise<string | undefined> {
    const { rows } = await sql<{ id: string }>`select id from ${this.table}
      where queue = ${queue} and key = ${key} and state in ('queued', 'running')`.execute(db);
    return rows[0]?.id;
  }

  /**
   * Claims up to `free` jobs of `queue` that are due, or running under a lease that ran out (taken over), oldest
   * first; each gets a lease token of its own and its attempt counted. Two workers never claim one job: a row
   * another claim has locked is skipped.
   */
  async claim(db: Kysely<any>, o: { queue: string; free: number; now: number; leaseUntil: number }): Promise<QueueRow[]> {
    // Two statements, each walking its own index in order (an `or` of both made PostgreSQL sort every due row).
    const takenOver = await this.claimWhere(db, o, o.free, sql`state = 'running' and lease_until < ${o.now}::int8`, sql`lease_until`);
    if (takenOver.length >= o.free) return takenOver;
    const due = await this.claimWhere(db, o, o.free - takenOver.length, sql`state = 'queued' and run_at <= ${o.now}::int8`, sql`run_at`);
    return [...takenOver, ...due];
  }

  private async claimWhere(
    db: Kysely<any>,
    o: { queue: string; now: number; leaseUntil: number },
    limit: number,
    which: RawBuilder<unknown>,
    order: RawBuilder<unknown>,
  ): Promise<QueueRow[]> {
    const { rows } = await sql<QueueRow>`update ${this.table} q set state = 'running', lease_token = gen_random_uuid()::text,
        lease_until = ${o.leaseUntil}::int8, attempts = q.attempts + 1, updated_at = ${o.now}::int8
      where q.id = any(array(
        select id from ${this.table} where queue = ${o.queue} and ${which}
        order by ${order} limit ${limit}
        for update skip locked))
      returning q.*`.execute(db);
    return rows;
  }

  /**
   * Claims like `claim`, for a queue with groups: per group, at most `limit` running at once counting every
   * process's live leases, none from a paused group or one whose gap has not passed. Claims of one grouped queue
   * take turns (an advisory lock for the transaction), so two processes cannot both fill a group's last slot.
   * The groups are found by skipping through the open jobs' index, one probe per group.
   */
  async claimGrouped(db: Kysely<any>, o: { queue: string; free: number; now: number; leaseUntil: number; limit: number }): Promise<QueueRow[]> {
    return db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(7361100, hashtext(${`${this.schema}.${o.queue}`}))`.execute(tx);
      const { rows } = await sql<QueueRow>`
        with recursive open_groups(k) as (
          (select group_key from ${this.table}
            where queue = ${o.queue} and group_key is not null and state in ('queued', 'running') order by group_key limit 1)
          union all
          select (select x.group_key from ${this.table} x
                  where x.queue = ${o.queue} and x.group_key > g.k and x.state in ('queued', 'running') order by x.group_key limit 1)
          from open_groups g where g.k is not null
        ),
        candidates as (
          select due.id, due.run_at,
            row_number() over (partition by g.k order by due.run_at, due.id) as rn,
            (select count(*) from ${this.table} r
              where r.queue = ${o.queue} and r.group_key = g.k and r.state = 'running' and r.lease_until >= ${o.now}::int8) as busy
          from open_groups g
          left join ${this.groups} gr on gr.queue = ${o.queue} and gr.group_key = g.k
          cross join lateral (
            select x.id, x.run_at from ${this.table} x
            where x.queue = ${o.queue} and x.group_key = g.k
              and ((x.state = 'queued' and x.run_at <= ${o.now}::int8) or (x.state = 'running' and x.lease_until < ${o.now}::int8))
            order by x.run_at limit ${o.limit}
          ) due
          where g.k is not null and not coalesce(gr.paused, false) and coalesce(gr.next_at, 0) <= ${o.now}::int8
        )
        update ${this.table} q set state = 'running', lease_token = gen_random_uuid()::text,
          lease_until = ${o.leaseUntil}::int8, attempts = q.attempts + 1, updated_at = ${o.now}::int8
        where q.id in (select c.id from candidates c where c.rn <= ${o.limit} - c.busy order by c.run_at limit ${o.free})
          and ((q.state = 'queued' and q.run_at <= ${o.now}::int8) or (q.state = 'running' and q.lease_until < ${o.now}::int8))
        returning q.*`.execute(tx);
      return rows;
    });
  }

  /** Extends the leases still held; answers the tokens that are (the others were lost). */
  async renew(db: Kysely<any>, tokens: string[], leaseUntil: number): Promise<Set<string>> {
    if (tokens.length === 0) return new Set();
    const { rows } = await sql<{ lease_token: string }>`update ${this.table} set lease_until = ${leaseUntil}::int8
      where lease_token = any(${tokens}::text[]) and state = 'running'
      returning lease_token`.execute(db);
    return new Set(rows.map((r) => r.lease_token));
  }

  /** Extends one lease, in the caller's transaction; false when it is no longer held. */
  async holds(db: Kysely<any>, id: string, token: string, leaseUntil: number): Promise<boolean> {
    const { rows } = await sql`update ${this.table} set lease_until = ${leaseUntil}::int8
      where id = ${id} and lease_token = ${token} and state = 'running' returning id`.execute(db);
    return rows.length === 1;
  }

  /** Ends a held job as done (its payload is dropped: it may be large, and a done job needs none); false if not held. */
  async done(db: Kysely<any>, id: string, token: string, now: number): Promise<boolean> {
    const { rows } = await sql`update ${this.table} set state = 'done', payload = 'null'::jsonb, lease_token = null, lease_until = null,
        last_error = null, updated_at = ${now}::int8
      where id = ${id} and lease_token = ${token} and state = 'running' returning id`.execute(db);
    return rows.length === 1;
  }

  /** Ends many held jobs as done in one statement; answers the lease tokens that were still held. */
  async doneMany(db: Kysely<any>, jobs: { id: string; token: string; now: number }[]): Promise<Set<string>> {
    if (jobs.length === 0) return new Set();
    const values = sql.join(jobs.map((j) => sql`(${j.id}, ${j.token}, ${j.now}::int8)`));
    const { rows } = await sql<{ token: string }>`update ${this.table} q set state = 'done', payload = 'null'::jsonb, lease_token = null,
        lease_until = null, last_error = null, updated_at = v.now
      from (values ${values}) as v (id, token, now)
      where q.id = v.id and q.lease_token = v.token and q.state = 'running'
      returning v.token`.execute(db);
    return new Set(rows.map((r) => r.token));
  }

  /** Queues a held job again at `runAt`; `giveBack` returns the attempt (a release on stop). False if not held. */
  async requeue(db: Kysely<any>, o: { id: string; token: string; runAt: number; reason: string | null; giveBack: boolean; now: number }): Promise<boolean> {
    const { rows } = await sql`update ${this.table} set state = 'queued', run_at = ${o.runAt}::int8,
        attempts = attempts - ${o.giveBack ? 1 : 0}::int4, lease_token = null, lease_until = null,
        last_error = coalesce(${o.reason}::text, last_error), updated_at = ${o.now}::int8
      where id = ${o.id} and lease_token = ${o.token} and state = 'running' returning id`.execute(db);
    return rows.length === 1;
  }

  /**
   * Fails a held job for good with its reason; false if not held. Its payload is dropped, as when done: it may be
   * large (a capture's page) and nothing reads a failed job's payload (the failure hook gets the job as it ran).
   */
  async fail(db: Kysely<any>, id: string, token: string, reason: string, now: number): Promise<boolean> {
    const { rows } = await sql`update ${this.table} set state = 'failed', payload = 'null'::jsonb, attempts = least(attempts, max_attempts),
        lease_token = null, lease_until = null, last_error = ${reason}, updated_at = ${now}::int8
      where id = ${id} and lease_token = ${token} and state = 'running' returning id`.execute(db);
    return rows.length === 1;
  }

  /** A group's next job may not start before `at` (it never moves earlier). */
  async gap(db: Kysely<any>, queue: string, group: string, at: number): Promise<void> {
    await sql`insert into ${this.groups} (queue, group_key, next_at) values (${queue}, ${group}, ${at}::int8)
      on conflict (queue, group_key) do update set next_at = greatest(${this.groups}.next_at, excluded.next_at)`.execute(db);
  }

  async pauseGroup(db: Kysely<any>, queue: string, group: string): Promise<void> {
    await sql`insert into ${this.groups} (queue, group_key, paused) values (${queue}, ${group}, true)
      on conflict (queue, group_key) do update set paused = true`.execute(db);
  }

  /** Unpauses a group; with `dueNow` its waiting jobs become due now (those due already keep their order). */
  async resumeGroup(db: Kysely<any>, queue: string, group: string, dueNow: boolean, now: number): Promise<void> {
    await sql`update ${this.groups} set paused = false where queue = ${queue} and group_key = ${group}`.execute(db);
    if (dueNow) {
      await sql`update ${this.table} set run_at = ${now}::int8, updated_at = ${now}::int8
        where queue = ${queue} and group_key = ${group} and state = 'queued' and run_at > ${now}::int8`.execute(db);
    }
  }

  /** Fails every open job of a group, their payloads dropped; answers them as they were (payloads and lease tokens included). */
  async failGroup(db: Kysely<any>, queue: string, group: string, reason: string, now: number): Promise<QueueRow[]> {
    const { rows } = await sql<QueueRow>`with target as (
        select id, payload, lease_token from ${this.table}
        where queue = ${queue} and group_key = ${group} and state in ('queued', 'running') for update)
      update ${this.table} q set state = 'failed', payload = 'null'::jsonb, lease_token = null, lease_until = null, last_error = ${reason},
        updated_at = ${now}::int8
      from target where q.id = target.id
      returning q.id, q.queue, q.key, q.group_key, q.account_id, target.payload, q.attempts, q.max_attempts, q.run_at,
        q.created_at, q.updated_at, q.last_error, q.state, target.lease_token`.execute(db);
    return rows;
  }

  /** Removes the open job with this key; answers its lease token when it was running (null when waiting). */
  async cancel(db: Kysely<any>, queue: string, key: string): Promise<{ found: boolean; token: string | null }> {
    const { rows } = await sql<{ lease_token: string | null }>`delete from ${this.table}
      where queue = ${queue} and key = ${key} and state in ('queued', 'running') returning lease_token`.execute(db);
    return { found: rows.length > 0, token: rows[0]?.lease_token ?? null };
  }

  async get(db: Kysely<any>, id: string): Promise<QueueRow | undefined> {
    const { rows } = await sql<QueueRow>`select * from ${this.table} where id = ${id}`.execute(db);
    return rows[0];
  }

  async counts(db: Kysely<any>, now: number): Promise<QueueCounts> {
    const { rows } = await sql<QueueCounts>`select
        (select count(*) from ${this.table} where state = 'queued') as queued,
        (select count(*) from ${this.table} q where state = 'queued' and run_at <= ${now}::int8
          and not exists (select 1 from ${this.groups} g where g.queue = q.queue and g.group_key = q.group_key and g.paused)) as due,
        (select count(*) from ${this.table} where state = 'running') as running,
        (select count(*) from ${this.table} where state = 'running' and lease_until < ${now}::int8) as "leaseExpired",
        (select count(*) from ${this.table} where state = 'failed') as failed`.execute(db);
    const r = rows[0]!;
    return { queued: Number(r.queued), due: Number(r.due), running: Number(r.running), leaseExpired: Number(r.leaseExpired), failed: Number(r.failed) };
  }

  /** Waiting (due or not, and due now) and running jobs by queue: read through the partial indexes of open jobs. */
  async depthByQueue(db: Kysely<any>, now: number): Promise<QueueDepth[]> {
    const { rows } = await sql<QueueDepth>`select queue,
        count(*) filter (where state = 'queued') as queued,
        count(*) filter (where state = 'queued' and run_at <= ${now}::int8
          and not exists (select 1 from ${this.groups} g where g.queue = q.queue and g.group_key = q.group_key and g.paused)) as due,
        count(*) filter (where state = 'running') as running
      from ${this.table} q where state in ('queued', 'running') group by queue`.execute(db);
    return rows.map((r) => ({ queue: r.queue, queued: Number(r.queued), due: Number(r.due), running: Number(r.running) }));
  }

  /**
   * When this worker could next find work without being woken: a waiting job coming due, another worker's lease
   * running out, a group's gap passing. Jobs due now that were not claimed wait on a free slot, which wakes it.
   */
  async nextDue(db: Kysely<any>, o: { queues: string[]; grouped: string[]; mine: string[]; now: number }): Promise<number | null> {
    if (o.queues.length === 0) return null;
    const { rows } = await sql<{ at: number | null }>`select least(
        (select min(run_at) from ${this.table} where state = 'queued' and queue = any(${o.queues}::text[]) and run_at > ${o.now}::int8),
        (select min(lease_until) from ${this.table} where state = 'running' and queue = any(${o.queues}::text[])
          and lease_until >= ${o.now}::int8 and lease_token <> all(${o.mine}::text[])),
        (select min(next_at) from ${this.groups} where queue = any(${o.grouped}::text[]) and not paused and next_at > ${o.now}::int8)
      )::int8 as at`.execute(db);
    const at = rows[0]?.at;
    return at === null || at === undefined ? null : Number(at);
  }

  /** Every running job back to waiting (a process that starts alone on its data finds its dead self's claims); answers them. */
  async recover(db: Kysely<any>, now: number, except: string[]): Promise<QueueRow[]> {
    const { rows } = await sql<QueueRow>`update ${this.table} set state = 'queued', lease_token = null, lease_until = null, updated_at = ${now}::int8
      where state = 'running' and lease_token <> all(${except}::text[]) returning *`.execute(db);
    return rows;
  }

  /** Deletes finished jobs past their keeping time, a bounded number per call; answers how many. */
  async sweep(db: Kysely<any>, o: { doneBefore: number; failedBefore: number; now: number; limit: number }): Promise<number> {
    let removed = 0;
    for (const [state, before] of [["done", o.doneBefore], ["failed", o.failedBefore]] as const) {
      const { rows } = await sql`delete from ${this.table} where id = any(array(
          select id from ${this.table} where state = ${state} and updated_at < ${before}::int8 limit ${o.limit}))
        returning id`.execute(db);
      removed += rows.length;
    }
    // A group row that is not paused and whose gap has passed says nothing more than no row.
    await sql`delete from ${this.groups} where not paused and next_at < ${o.now}::int8`.execute(db);
    return removed;
  }
}
