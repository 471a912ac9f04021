import { sql, type Kysely } from "kysely";

// Rate limits every gateway replica shares (rate-limiter-flexible's PostgreSQL store, which is told the table
// exists and so never runs DDL itself): one row per budget and key (`<policy>:<key>`), its points used in the
// window and when the window ends (ms). Unlogged: a count needs no WAL, nor to survive a crash or a failover; a
// lost window only starts afresh. Expired rows are deleted by the gateways an hour after they end.
export async function up(db: Kysely<any>) {
  await sql`create unlogged table gateway.rate_limits (
    key text primary key,
    points integer not null default 0,
    expire bigint
  )`.execute(db);
}
