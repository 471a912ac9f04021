import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>) {
  await sql`create table items.tags (
    id text primary key,
    account_id text not null,
    name text not null,
    slug text not null,
    description text,
    created_at int8 not null,
    unique (account_id, slug)
  )`.execute(db);
  await sql`create table items.item_tags (
    account_id text not null,
    item_id text not null references items.items(id) on delete cascade,
    tag_id text not null references items.tags(id) on delete cascade,
    added_at int8 not null,
    primary key (item_id, tag_id)
  )`.execute(db);
  await sql`create index item_tags_tag on items.item_tags (tag_id)`.execute(db);

  await sql`create table items.collections (
    id text primary key,
    account_id text not null,
    name text not null,
    slug text not null,
    created_at int8 not null,
    unique (account_id, slug)
  )`.execute(db);
  await sql`create table items.item_collections (
    account_id text not null,
    item_id text not null references items.items(id) on delete cascade,
    collection_id text not null references items.collections(id) on delete cascade,
    added_at int8 not null,
    primary key (item_id, collection_id)
  )`.execute(db);
  await sql`create index item_collections_collection on items.item_collections (collection_id)`.execute(db);

  await sql`create table items.highlights (
    id text primary key,
    account_id text not null,
    item_id text not null references items.items(id) on delete cascade,
    text text not null,
    prefix text not null default '',
    suffix text not null default '',
    note text not null default '',
    start_offset int4,
    end_offset int4,
    created_at int8 not null,
    updated_at int8 not null
  )`.execute(db);
  await sql`create index highlights_item on items.highlights (item_id, created_at, id)`.execute(db);

  // Web captures keep their source URL; uploads keep a blob key, served at an authenticated URL.
  await sql`create table items.media (
    id text primary key,
    account_id text not null,
    item_id text not null references items.items(id) on delete cascade,
    position int4 not null,
    kind text not null,
    url text not null,
    alt text not null default '',
    title text not null default '',
    width int4,
    height int4,
    blob_key text,
    content_type text,
    size int4,
    created_at int8 not null
  )`.execute(db);
  await sql`create index media_item on items.media (item_id, position)`.execute(db);

  // Feed and list filters.
  await sql`create index items_account_processed on items.items (account_id, created_at desc) where processed_at is null`.execute(db);
  await sql`create index items_title_trgm on items.items using gin (title gin_trgm_ops)`.execute(db);
}
