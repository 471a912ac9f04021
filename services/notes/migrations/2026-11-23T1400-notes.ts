import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>) {
  // The current state of each note, body included: reading a note is one row however long its history.
  // Timestamps are Unix seconds. tags and paths are JSON arrays of strings (tag slugs; repository paths).
  await sql`create table notes.notes (
    id text primary key,
    account_id text not null,
    title text not null,
    body text not null,
    kind text,
    state text,
    project_id text,
    repository text,
    repository_key text,
    paths jsonb not null default '[]',
    tags jsonb not null default '[]',
    properties jsonb not null default '{}',
    current_revision int4 not null,
    bytes int4 not null,
    line_count int4 not null,
    snapshot_revision int4 not null,
    snapshot_bytes int4 not null,
    create_request_id text,
    archived_at int8,
    created_at int8 not null,
    updated_at int8 not null
  )`.execute(db);
  await sql`create index notes_recent on notes.notes (account_id, updated_at desc, id desc)`.execute(db);
  await sql`create index notes_project on notes.notes (account_id, project_id) where project_id is not null`.execute(db);
  await sql`create index notes_repository on notes.notes (account_id, repository_key) where repository_key is not null`.execute(db);
  await sql`create index notes_tags on notes.notes using gin (tags)`.execute(db);
  // A create repeated with the same clientRequestId finds the note it made.
  await sql`create unique index notes_create_request on notes.notes (account_id, create_request_id) where create_request_id is not null`.execute(db);

  // One row per revision, never rewritten. storage 'full' holds the whole body; 'delta' holds only what the revision
  // appended to the one before it (empty for metadata, archive and restore), so history grows with what was
  // written, not with its square. Revision N's body = the 'full' row at base_revision + the deltas after it up to N.
  await sql`create table notes.revisions (
    note_id text not null references notes.notes (id) on delete cascade,
    account_id text not null,
    revision int4 not null,
    operation text not null,
    title text not null,
    storage text not null,
    body text not null,
    base_revision int4 not null,
    bytes int4 not null,
    line_count int4 not null,
    client_request_id text,
    metadata_diff jsonb not null,
    restored_from int4,
    created_at int8 not null,
    primary key (note_id, revision)
  )`.execute(db);
  // The same clientRequestId on the same note is one write, however often (and however concurrently) it is sent.
  await sql`create unique index revisions_request on notes.revisions (note_id, client_request_id) where client_request_id is not null`.execute(db);

  await sql`create table notes.item_links (
    id text primary key,
    account_id text not null,
    note_id text not null references notes.notes (id) on delete cascade,
    item_id text not null,
    highlight_id text,
    relation text not null,
    annotation text not null default '',
    created_at int8 not null
  )`.execute(db);
  // The same attachment again is the same link.
  await sql`create unique index item_links_same on notes.item_links (note_id, item_id, coalesce(highlight_id, ''), relation)`.execute(db);
  await sql`create index item_links_item on notes.item_links (account_id, item_id)`.execute(db);

  // Projects; repositories as given, and their normalised keys (host/owner/name) in project_repositories, where one
  // key belongs to at most one live (not archived) project of an account.
  await sql`create table notes.projects (
    id text primary key,
    account_id text not null,
    name text not null,
    description text not null default '',
    color text,
    state text not null default 'active',
    repositories jsonb not null default '[]',
    archived_at int8,
    created_at int8 not null,
    updated_at int8 not null
  )`.execute(db);
  await sql`create index projects_recent on notes.projects (account_id, updated_at desc, id desc)`.execute(db);
  await sql`create table notes.project_repositories (
    account_id text not null,
    repo_key text not null,
    project_id text not null references notes.projects (id) on delete cascade,
    primary key (account_id, repo_key)
  )`.execute(db);
}
