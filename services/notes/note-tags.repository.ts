// Which notes carry a tag, for removing a deleted tag from them. Kysely only; the account id in every signature.
import { sql, type Kysely } from "kysely";

export class NoteTagsRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** Ids of the account's notes (archived ones too) carrying the tag slug, after `afterId` in id order. */
  async notesWithTag(accountId: string, slug: string, afterId: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom("notes.notes")
      .select("id")
      .where("account_id", "=", accountId)
      .where(sql<boolean>`tags ? ${slug}`)
      .where("id", ">", afterId)
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map((r) => r.id as string);
  }
}
