// List pages at 100k items (docs/decisions.md, "List counts (counter rows)"): the `count` of the common lists (by
// status, one tag, one collection) is a sum of a few counter rows instead of a scan of every item in the list.
// Triggers append a +1/-1 row in the writing transaction, so a count is exact in every snapshot; rows are only ever
// inserted (no row is updated in place: concurrent writers never wait for each other or deadlock on a counter),
// and the items service folds a list's rows into one when they grow (ListCountsRepository.fold).
// `list` is '' for all the account's items, 't:<tag id>' for a tag's, 'c:<collection id>' for a collection's.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table items.list_counts (
    account_id text not null,
    list text not null,
    status text not null,
    n int8 not null
  )`.execute(db);
  await sql`create index list_counts_list on items.list_counts (account_id, list, status) include (n)`.execute(db);

  // An item counts in the account's list, and in its tags' and collections' lists, under its status.
  await sql`create function items.count_item(acct text, item text, st text, delta int) returns void language sql as $$
    insert into items.list_counts (account_id, list, status, n)
      select acct, '', st, delta
      union all select acct, 't:' || it.tag_id, st, delta from items.item_tags it where it.item_id = item
      union all select acct, 'c:' || ic.collection_id, st, delta from items.item_collections ic where ic.item_id = item
  $$`.execute(db);

  await sql`create function items.list_counts_item() returns trigger language plpgsql as $$
    begin
      -- A new item counts in the account's list alone: links made in the same statement (a data-modifying CTE)
      -- are already there when this trigger runs, and count themselves.
      if tg_op = 'INSERT' then
        insert into items.list_counts (account_id, list, status, n) values (new.account_id, '', new.status, 1);
        return null;
      elsif tg_op = 'UPDATE' then
        perform items.count_item(old.account_id, old.id, old.status, -1);
        perform items.count_item(new.account_id, new.id, new.status, 1);
        return null;
      end if;
      -- Before the delete: the item's tag and collection links are still there (the cascade removes them after).
      perform items.count_item(old.account_id, old.id, old.status, -1);
      return old;
    end $$`.execute(db);
  await sql`create trigger list_counts_item_insert after insert on items.items
    for each row execute function items.list_counts_item()`.execute(db);
  await sql`create trigger list_counts_item_status after update of status on items.items
    for each row when (old.status is distinct from new.status) execute function items.list_counts_item()`.execute(db);
  await sql`create trigger list_counts_item_delete before delete on items.items
    for each row execute function items.list_counts_item()`.execute(db);

  // A link added or removed counts under its item's status; a link removed by its item's delete (the cascade,
  // after the item's row is gone) was already counted down with the item.
  await sql`create function items.count_link(acct text, item text, list text, delta int) returns void language sql as $$
    insert into items.list_counts (account_id, list, status, n) select acct, list, i.status, delta from items.items i where i.id = item
  $$`.execute(db);
  await sql`create function items.list_counts_tag() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then perform items.count_link(new.account_id, new.item_id, 't:' || new.tag_id, 1);
      else perform items.count_link(old.account_id, old.item_id, 't:' || old.tag_id, -1); end if;
      return null;
    end $$`.execute(db);
  await sql`create function items.list_counts_collection() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then perform items.count_link(new.account_id, new.item_id, 'c:' || new.collection_id, 1);
      else perform items.count_link(old.account_id, old.item_id, 'c:' || old.collection_id, -1); end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger list_counts_tag after insert or delete on items.item_tags
    for each row execute function items.list_counts_tag()`.execute(db);
  await sql`create trigger list_counts_collection after insert or delete on items.item_collections
    for each row execute function items.list_counts_collection()`.execute(db);

  // The counts of what is already there.
  await sql`insert into items.list_counts (account_id, list, status, n)
    select account_id, '', status, count(*) from items.items group by account_id, status
    union all
    select i.account_id, 't:' || it.tag_id, i.status, count(*) from items.item_tags it join items.items i on i.id = it.item_id
      group by i.account_id, it.tag_id, i.status
    union all
    select i.account_id, 'c:' || ic.collection_id, i.status, count(*) from items.item_collections ic join items.items i on i.id = ic.item_id
      group by i.account_id, ic.collection_id, i.status`.execute(db);
}
