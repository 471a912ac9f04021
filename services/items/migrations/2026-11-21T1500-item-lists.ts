import { sql, type Kysely } from "kysely";

// Reads outnumber writes: each item carries its tags, collections and highlight count, kept by the writers,
// so reading an item or a page of items needs no joins. The link tables stay the source of truth.
export async function up(db: Kysely<any>) {
  await sql`alter table items.items
    add column tags jsonb not null default '[]'::jsonb,
    add column collections jsonb not null default '[]'::jsonb,
    add column highlight_count int4 not null default 0`.execute(db);
  await sql`update items.items i set
    tags = coalesce((select jsonb_agg(jsonb_build_object('name', t.name, 'slug', t.slug) order by it.added_at, t.slug)
      from items.item_tags it join items.tags t on t.id = it.tag_id where it.item_id = i.id), '[]'::jsonb),
    collections = coalesce((select jsonb_agg(jsonb_build_object('id', c.id, 'name', c.name, 'slug', c.slug) order by ic.added_at desc, c.slug)
      from items.item_collections ic join items.collections c on c.id = ic.collection_id where ic.item_id = i.id), '[]'::jsonb),
    highlight_count = (select count(*) from items.highlights h where h.item_id = i.id)`.execute(db);
}
