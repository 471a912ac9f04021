// The items' lexical search index (see docs/decisions.md, "Search"): one row per item, written by the search
// consumer from item events, never by a request. The weighted vector holds title (A), tags and the user's notes
// (B), URL (C) and the first 256 KB of content (D); title and URL are kept folded for trigram typo tolerance.
// Rows go with their item (cascade), so a deleted item can never be found even before its event is consumed.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table items.search_docs (
    id text primary key references items.items (id) on delete cascade,
    account_id text not null,
    doc tsvector not null,
    title_fold text not null default '',
    url_fold text not null default '',
    updated_at int8 not null
  )`.execute(db);
  await sql`create index search_docs_doc on items.search_docs using gin (doc)`.execute(db);
  await sql`create index search_docs_account on items.search_docs (account_id)`.execute(db);
  await sql`create index search_docs_title_trgm on items.search_docs using gin (title_fold gin_trgm_ops)`.execute(db);
  await sql`create index search_docs_url_trgm on items.search_docs using gin (url_fold gin_trgm_ops)`.execute(db);
}
