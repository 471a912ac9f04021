// Collections and item membership. Kysely only; the account id in every signature.
import type { Kysely, SelectQueryBuilder } from "kysely";

export interface CollectionRow {
  id: string;
  name: string;
  slug: string;
}

export class CollectionsRepository {
  private readonly db: Kysely<any>;
  constructor(root: Kysely<any>) {
    this.db = root;
  }

  /** The collection named by id or slug. */
  async find(accountId: string, idOrSlug: string[]): Promise<CollectionRow[]> {
    if (idOrSlug.length === 0) return [];
    return (await this.db
      .selectFrom("items.collections")
      .select(["id", "name", "slug"])
      .where("account_id", "=", accountId)
      .where((eb) => eb.or([eb("id", "in", idOrSlug), eb("slug", "in", idOrSlug)]))
      .execute()) as CollectionRow[];
  }

  async ensure(accountId: string, c: { id: string; name: string; slug: string; now: number }): Promise<{ collection: CollectionRow; existing: boolean }> {
    const inserted = await this.db
      .insertInto("items.collections")
      .values({ id: c.id, account_id: accountId, name: c.name, slug: c.slug, created_at: c.now })
      .onConflict((oc) => oc.columns(["account_id", "slug"]).doNothing())
      .returning(["id", "name", "slug"])
      .executeTakeFirst();
    if (inserted) return { collection: inserted as CollectionRow, existing: false };
    const [existing] = await this.find(accountId, [c.slug]);
    return { collection: existing!, existing: true };
  }

  /** Creates the collections whose slugs do not exist yet and answers them all (slug order, as tags). */
  async ensureMany(accountId: string, collections: { id: string; name: string; slug: string }[], now: number): Promise<CollectionRow[]> {
    if (collections.length === 0) return [];
    const sorted = [...collections].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
    await this.db
      .insertInto("items.collections")
      .values(sorted.map((c) => ({ id: c.id, account_id: accountId, name: c.name, slug: c.slug, created_at: now })))
      .onConflict((oc) => oc.columns(["account_id", "slug"]).doNothing())
      .execute();
    return (await this.db
      .selectFrom("items.collections")
      .select(["id", "name", "slug"])
      .where("account_id", "=", accountId)
      .where("slug", "in", sorted.map((c) => c.slug))
      .execute()) as CollectionRow[];
  }

  async list(accountId: string): Promise<(CollectionRow & { item_count: number })[]> {
    return (await this.db
      .selectFrom("items.collections as c")
      .leftJoin("items.item_collections as ic", "ic.collection_id", "c.id")
      .select(["c.id", "c.name", "c.slug", (eb) => eb.fn.count<number>("ic.item_id").as("item_count")])
      .where("c.account_id", "=", accountId)
      .groupBy(["c.id", "c.name", "c.slug"])
      .orderBy("c.name")
      .execute()) as (CollectionRow & { item_count: number })[];
  }

  /** The collections holding some items (`itemIds`, a subquery: a key's scope), counted over those items, and `own`. */
  async listInScope(accountId: string, itemIds: SelectQueryBuilder<any, any, { id: string }>, own: string | undefined): Promise<(CollectionRow & { item_count: number })[]> {
    return (await this.db
      .selectFrom("items.collections as c")
      .leftJoin("items.item_collections as ic", (join) => join.onRef("ic.collection_id", "=", "c.id").on("ic.item_id", "in", itemIds))
      .select(["c.id", "c.name", "c.slug", (eb) => eb.fn.count<number>("ic.item_id").as("item_count")])
      .where("c.account_id", "=", accountId)
      .groupBy(["c.id", "c.name", "c.slug"])
      .having((eb) => {
        const shown = eb(eb.fn.count<number>("ic.item_id"), ">", 0);
        return own ? eb.or([shown, eb("c.id", "=", own)]) : shown;
      })
      .orderBy("c.name")
      .execute()) as (CollectionRow & { item_count: number })[];
  }

  async link(accountId: string, itemId: string, collectionIds: string[], now: number): Promise<void> {
    if (collectionIds.length === 0) return;
    await this.db
      .insertInto("items.item_collections")
      .values(collectionIds.map((cid) => ({ account_id: accountId, item_id: itemId, collection_id: cid, added_at: now })))
      .onConflict((oc) => oc.columns(["item_id", "collection_id"]).doNothing())
      .execute();
  }

  async unlink(accountId: string, itemId: string, collectionIds: string[]): Promise<void> {
    if (collectionIds.length === 0) return;
    await this.db
      .deleteFrom("items.item_collections")
      .where("account_id", "=", accountId)
      .where("item_id", "=", itemId)
      .where("collection_id", "in", collectionIds)
      .execute();
  }
}
