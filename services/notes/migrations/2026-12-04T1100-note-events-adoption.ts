// Note events move to the database's event log (schema eventlog, migrated before any service): the events the old
// outbox still held (not yet published when the service last stopped) become events of the log, unpositioned, so
// they are numbered and handed to the consumers like any new one; then the outbox goes. Rows that were published
// were deleted by the outbox and have nothing to move.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  // Writers of an older process still running wait here, so a row committed while the move runs is moved too
  // (rather than dropped with the table); once it is done their writes fail, unacknowledged.
  await sql`lock table notes.note_events in exclusive mode`.execute(db);
  await sql`
    insert into eventlog.events (id, stream, subject, account_id, key, at, data)
    select id, 'notes', 'notes.event.' || type, account_id, note_id, changed_at,
           jsonb_build_object('id', id, 'accountId', account_id, 'type', type, 'noteId', note_id,
                              'revision', revision, 'operation', operation, 'changedAt', changed_at)
      from notes.note_events
     order by changed_at, id
    on conflict (id) do nothing`.execute(db);
  await sql`drop table notes.note_events`.execute(db);
}
