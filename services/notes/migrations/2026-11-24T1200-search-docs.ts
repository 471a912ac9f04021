// The notes' lexical search index (docs/decisions.md, "Search"): one row per note, written by the search consumer
// from note events, never by a request. Title (A), tags and description (B), repository and paths (C), the first
// 256 KB of the body (D); the title kept folded for trigram typo tolerance. Rows go with their note (cascade).
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table notes.search_docs (
    id text primary key references notes.notes (id) on delete cascade,
    account_id text not null,
    doc tsvector not null,
    title_fold text not null default '',
    updated_at int8 not null
  )`.execute(db);
  await sql`create index search_docs_doc on notes.search_docs using gin (doc)`.execute(db);
  await sql`create index search_docs_account on notes.search_docs (account_id)`.execute(db);
  await sql`create index search_docs_title_trgm on notes.search_docs using gin (title_fold gin_trgm_ops)`.execute(db);
}
