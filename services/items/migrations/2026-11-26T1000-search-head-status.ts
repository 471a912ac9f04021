// Search at 100k items (docs/decisions.md, "Search"): each document gets a small ranking vector `head` (title,
// tags, notes, URL, the first 1,024 characters of content), so ranking never detoasts the full `doc`, and the
// item's `status`, so the common filter (not archived) needs no join over items. The status is copied by
// triggers, not by the search consumer: an archived item drops out of the next search, not after the event.
// The table is emptied: the start-up backfill (reindexIfEmpty) rebuilds every document with its head.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`truncate items.search_docs`.execute(db);
  await sql`alter table items.search_docs
    add column head tsvector not null,
    add column status text not null default 'stashed'`.execute(db);
  // A document written (by the consumer) takes its item's status as committed when the row is written...
  await sql`create function items.search_doc_status() returns trigger language plpgsql as $$
    begin
      new.status := coalesce((select i.status from items.items i where i.id = new.id), new.status);
      return new;
    end $$`.execute(db);
  await sql`create trigger search_doc_status before insert or update on items.search_docs
    for each row execute function items.search_doc_status()`.execute(db);
  // ...and a status change reaches the document in the changing transaction.
  await sql`create function items.item_status_to_search() returns trigger language plpgsql as $$
    begin
      update items.search_docs set status = new.status where id = new.id;
      return null;
    end $$`.execute(db);
  await sql`create trigger item_status_to_search after update of status on items.items
    for each row when (old.status is distinct from new.status) execute function items.item_status_to_search()`.execute(db);
  // No index by account: with sequential scans off, the planner took it (every document of the account) and
  // tested `@@` on each, detoasting them all; the GIN index must answer, the account is a filter on its rows.
  await sql`drop index items.search_docs_account`.execute(db);
}
