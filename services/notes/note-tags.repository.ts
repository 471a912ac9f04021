// Which notes carry a tag, for removing a deleted tag from them. Kysely only; the account id in every signature.
import { sql, type Kysely } from "kysely";

export class NoteTagsRepository {
  constructor(private readonly db: Kysely<any>) {}

  /**
   * Ids of the account's notes (archived ones too) carrying the tag slug, after `afterId` in id order, leaving out
   * notes given the tag after `deletedAt` (Unix seconds: a revision later than that second added it).
   */
  async notesWithTag(accountId: string, slug: string, deletedAt: number, afterId: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom("notes.notes as n")
      .select("n.id")
      .where("n.account_id", "=", accountId)
      .where(sql<boolean>`n.tags ? ${slug}`)
      .where("n.id", ">", afterId)
      // Only a note changed since the deletion can have been given the tag since: its recent revisions are read.
      .where((eb) =>
        eb.or([
          eb("n.updated_at", "<=", deletedAt),
          eb.not(
            eb.exists(
              eb
                .selectFrom("notes.revisions as r")
                .select(sql`1`.as("one"))
                .whereRef("r.note_id", "=", "n.id")
                .where("r.created_at", ">", deletedAt)
                .where(sql<boolean>`r.metadata_diff -> 'tagsAdded' ? ${slug}`),
            ),
          ),
        ]),
      )
      .orderBy("n.id")
      .limit(limit)
      .execute();
    return rows.map((r) => r.id as string);
  }
}
