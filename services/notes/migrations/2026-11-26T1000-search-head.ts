// Search ranking (docs/decisions.md, "Search"): each note's document gets a small ranking vector `head` (title,
// tags, description, repository, paths, the first 1,024 characters of the body), so ranking never detoasts the full
// `doc`. The table is emptied: the start-up backfill (reindexIfEmpty) rebuilds it.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`truncate notes.search_docs`.execute(db);
  await sql`alter table notes.search_docs add column head tsvector not null`.execute(db);
  // No index by account: the GIN index must answer `@@` (see the items' search-head-status migration).
  await sql`drop index notes.search_docs_account`.execute(db);
}
