// The items' events move into the database's event log (schema eventlog, migrated before any service): the item
// event outbox with its ids, positions and publication marks kept, so a change-stream cursor given out before the
// move walks on from where it was, and the tag.deleted outbox as events still to be positioned and published.
// Both old tables go. Every process writing the old tables must be stopped before this runs.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  // In write order, so that events still without a position get theirs in the order they were written.
  await sql`
    insert into eventlog.events (position, id, stream, subject, account_id, key, at, data, published_at)
    select position, id, 'items', 'items.event.' || type, account_id, item_id, changed_at,
           jsonb_build_object('id', id, 'accountId', account_id, 'type', type, 'itemId', item_id, 'changedAt', changed_at,
                              'beforeScope', before_scope, 'afterScope', after_scope, 'payload', payload),
           published_at
      from items.item_events
     order by seq`.execute(db);
  await sql`
    insert into eventlog.events (id, stream, subject, account_id, key, at, data)
    select id, 'items', 'tag.deleted', account_id, slug, deleted_at,
           jsonb_build_object('id', id, 'accountId', account_id, 'slug', slug, 'deletedAt', deleted_at)
      from items.tag_deletions
     order by deleted_at, id`.execute(db);
  await sql`drop table items.item_events`.execute(db);
  await sql`drop table items.tag_deletions`.execute(db);
}
