// Tags and item-tag links. Kysely only; the account id in every signature.
import type { Kysely, SelectQueryBuilder } from "kysely";

export interface TagRow {
  id: string;
  name: string;
  slug: string;
  description: string | null;
}

export class TagsRepository {
  private readonly db: Kysely<any>;
  constructor(root: Kysely<any>) {
    this.db = root;
  }

  async bySlugs(accountId: string, slugs: string[]): Promise<TagRow[]> {
    if (slugs.length === 0) return [];
    return (await this.db
      .selectFrom("items.tags")
      .select(["id", "name", "slug", "description"])
      .where("account_id", "=", accountId)
      .where("slug", "in", slugs)
      .execute()) as TagRow[];
  }

  /** Creates the tag unless its slug exists; returns the stored tag and whether it existed. */
  async ensure(accountId: string, t: { id: string; name: string; slug: string; description?: string | null; now: number }): Promise<{ tag: TagRow; existing: boolean }> {
    const inserted = await this.db
      .insertInto("items.tags")
      .values({ id: t.id, account_id: accountId, name: t.name, slug: t.slug, description: t.description ?? null, created_at: t.now })
      .onConflict((oc) => oc.columns(["account_id", "slug"]).doNothing())
      .returning(["id", "name", "slug", "description"])
      .executeTakeFirst();
    if (inserted) return { tag: inserted as TagRow, existing: false };
    const [tag] = await this.bySlugs(accountId, [t.slug]);
    return { tag: tag!, existing: true };
  }

  /**
   * Creates the tags whose slugs do not exist yet and answers them all, in two statements however many. Created
   * in slug order, so two transactions creating the same new tags take their locks in the same order.
   */
  async ensureMany(accountId: string, tags: { id: string; name: string; slug: string }[], now: number): Promise<TagRow[]> {
    if (tags.length === 0) return [];
    const sorted = [...tags].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
    await this.db
      .insertInto("items.tags")
      .values(sorted.map((t) => ({ id: t.id, account_id: accountId, name: t.name, slug: t.slug, description: null, created_at: now })))
      .onConflict((oc) => oc.columns(["account_id", "slug"]).doNothing())
      .execute();
    return this.bySlugs(accountId, sorted.map((t) => t.slug));
  }

  async update(accountId: string, slug: string, set: { name?: string; description?: string | null }): Promise<TagRow | undefined> {
    return (await this.db
      .updateTable("items.tags")
      .set(set)
      .where("account_id", "=", accountId)
      .where("slug", "=", slug)
      .returning(["id", "name", "slug", "description"])
      .executeTakeFirst()) as TagRow | undefined;
  }

  async delete(accountId: string, tagId: string): Promise<void> {
    await this.db.deleteFrom("items.tags").where("account_id", "=", accountId).where("id", "=", tagId).execute();
  }

  /** Tags on items that are not archived, plus tags on no item at all, with their visible item counts. */
  async listVisible(accountId: string): Promise<(TagRow & { item_count: number })[]> {
    const rows = (await this.db
      .selectFrom("items.tags as t")
      .leftJoin("items.item_tags as it", "it.tag_id", "t.id")
      .leftJoin("items.items as i", "i.id", "it.item_id")
      .select(["t.id", "t.name", "t.slug", "t.description"])
      .select((eb) => eb.fn.count<number>("i.id").filterWhere("i.status", "!=", "archived").as("item_count"))
      .select((eb) => eb.fn.count<number>("it.item_id").as("links"))
      .where("t.account_id", "=", accountId)
      .groupBy(["t.id", "t.name", "t.slug", "t.description"])
      .orderBy("t.name")
      .execute()) as (TagRow & { item_count: number; links: number })[];
    // Hidden: tags whose every item is archived.
    return rows.filter((r) => r.links === 0 || r.item_count > 0).map(({ links: _, ...r }) => r);
  }

  /**
   * The tags of some items (`itemIds`, a subquery: a key's scope) that are not archived, counted over those items
   * alone, plus the tags `own` names (a key's scope tags) with whatever count they have there.
   */
  async listInScope(accountId: string, itemIds: SelectQueryBuilder<any, any, { id: string }>, own: string[]): Promise<(TagRow & { item_count: number })[]> {
    return (await this.db
      .selectFrom("items.tags as t")
      .leftJoin("items.item_tags as it", (join) => join.onRef("it.tag_id", "=", "t.id").on("it.item_id", "in", itemIds))
      .leftJoin("items.items as i", "i.id", "it.item_id")
      .select(["t.id", "t.name", "t.slug", "t.description"])
      .select((eb) => eb.fn.count<number>("i.id").filterWhere("i.status", "!=", "archived").as("item_count"))
      .where("t.account_id", "=", accountId)
      .groupBy(["t.id", "t.name", "t.slug", "t.description"])
      .having((eb) => {
        const shown = eb(eb.fn.count<number>("i.id").filterWhere("i.status", "!=", "archived"), ">", 0);
        return own.length > 0 ? eb.or([shown, eb("t.slug", "in", own)]) : shown;
      })
      .orderBy("t.name")
      .execute()) as (TagRow & { item_count: number })[];
  }

  async link(accountId: string, itemId: string, tagIds: string[], now: number): Promise<void> {
    if (tagIds.length === 0) return;
    await this.db
      .insertInto("items.item_tags")
      .values(tagIds.map((tagId) => ({ account_id: accountId, item_id: itemId, tag_id: tagId, added_at: now })))
      .onConflict((oc) => oc.columns(["item_id", "tag_id"]).doNothing())
      .execute();
  }

  async unlink(accountId: string, itemId: string, tagIds: string[]): Promise<void> {
    if (tagIds.length === 0) return;
    await this.db.deleteFrom("items.item_tags").where("account_id", "=", accountId).where("item_id", "=", itemId).where("tag_id", "in", tagIds).execute();
  }

  async itemsWithTag(accountId: string, tagId: string): Promise<string[]> {
    const rows = await this.db.selectFrom("items.item_tags").select("item_id").where("account_id", "=", accountId).where("tag_id", "=", tagId).execute();
    return rows.map((r) => r.item_id as string);
  }
}
