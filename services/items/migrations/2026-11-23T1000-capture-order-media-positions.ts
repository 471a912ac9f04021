import { sql, type Kysely } from "kysely";

// Captures of one item can overlap (a slow background fetch and a later browser save): each capture has an id
// that orders it (UUIDv7, taken when it starts), and the item remembers the capture its content came from, so an
// older capture finishing last cannot overwrite a newer one. Media positions become unique per item: concurrent
// captures or uploads could add a second set of web images or two uploads at one position.
export async function up(db: Kysely<any>) {
  await sql`alter table items.items add column content_capture_id text`.execute(db);
  await sql`delete from items.media m using items.media d
    where m.kind = 'web' and d.kind = 'web' and m.item_id = d.item_id and m.position = d.position and m.id > d.id`.execute(db);
  await sql`update items.media m set position = r.n from (
      select id, row_number() over (partition by item_id order by position, created_at, id) - 1 as n
      from items.media where kind = 'upload') r
    where m.id = r.id and m.position <> r.n`.execute(db);
  await sql`drop index items.media_item`.execute(db);
  await sql`create unique index media_item_position on items.media (item_id, position)`.execute(db);
}
