// The mail spool: a received message is kept, raw, before the SMTP listener answers 250, and becomes items from
// there (a job per message), so nothing answered 250 is lost to a fault of ours. A message's listing and its entry
// claims name the spool row they came from, so a job run again finds what its earlier runs did.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  // `recipients`: the addresses of the inboxes that took it (lower case). `received_at` is Unix seconds, as the
  // listing's. sender, subject and message_id are what the first reading found, so that a failure listed later
  // (after the last try) names the message; null until then. The row goes when its job ends.
  await sql`create table sources.mail_spool (
    id text primary key,
    raw bytea not null,
    envelope_from text not null,
    recipients jsonb not null,
    size int8 not null,
    received_at int8 not null,
    sender text,
    subject text,
    message_id text
  )`.execute(db);
  // One listing per message and inbox; rows from before the spool have no spool id (nulls are distinct).
  await sql`alter table sources.messages add column spool_id text`.execute(db);
  await sql`create unique index messages_by_spool on sources.messages (spool_id, source_id)`.execute(db);
  // Which message claimed an entry (mail only): a run again of the same message goes on with its own claim.
  await sql`alter table sources.entries add column spool_id text`.execute(db);
}
