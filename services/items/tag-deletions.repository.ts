// The tag.deleted outbox: announcements written with the tag's deletion, removed once published. Kysely only.
import type { Kysely } from "kysely";
import type { TagDeletedEvent } from "@trove/contracts";

export class TagDeletionsRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** Writes the announcement; answers it as the event notes receives. */
  async add(accountId: string, e: { id: string; slug: string; deletedAt: number }): Promise<TagDeletedEvent> {
    await this.db.insertInto("items.tag_deletions").values({ id: e.id, account_id: accountId, slug: e.slug, deleted_at: e.deletedAt }).execute();
    return { id: e.id, accountId, slug: e.slug, deletedAt: e.deletedAt };
  }

  /** The oldest announcements not yet published, of every account (the publisher works for all of them). */
  async pending(limit: number): Promise<TagDeletedEvent[]> {
    const rows = await this.db
      .selectFrom("items.tag_deletions")
      .select(["id", "account_id", "slug", "deleted_at"])
      .orderBy("deleted_at")
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id as string, accountId: r.account_id as string, slug: r.slug as string, deletedAt: Number(r.deleted_at) }));
  }

  async published(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.deleteFrom("items.tag_deletions").where("id", "in", ids).execute();
  }
}
