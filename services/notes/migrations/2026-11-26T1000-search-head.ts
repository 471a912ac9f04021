// Search ranking (docs/decisions.md, "Search"): each note's document gets a small ranking vector `head` (title,
// tags, description, repository, paths, the first 1,024 characters of the body), kept inline so ranking never
// detoasts the full `doc`. The table is emptied: the start-up backfill (reindexIfEmpty) rebuilds it.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`truncate notes.search_docs`.execute(db);
  await sql`alter table notes.search_docs add column head tsvector not null`.execute(db);
  await sql`alter table notes.search_docs alter column head set storage main`.execute(db);
}
