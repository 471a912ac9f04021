// The notes export's reads: an account's notes in id order, a page of sizes first, then bodies in bounded batches.
import { sql, type Kysely } from "kysely";
import { noteColumns, noteOf, type NoteRow } from "./notes.repository.ts";

export class ExportRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** Up to `limit` of the account's notes after id `after` (null: from the first), in id order: ids and body sizes. */
  async page(accountId: string, after: string | null, limit: number): Promise<{ id: string; bytes: number }[]> {
    let q = this.db.selectFrom("notes.notes").select(["id", "bytes"]).where("account_id", "=", accountId);
    if (after !== null) q = q.where("id", ">", after);
    return (await q.orderBy("id").limit(limit).execute()) as { id: string; bytes: number }[];
  }

  /** Those notes, each row (metadata and body) read at once so its frontmatter and body agree; in id order. */
  async withBodies(accountId: string, ids: string[]): Promise<(NoteRow & { body: string })[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom("notes.notes")
      .select([...noteColumns, "body"])
      .where("account_id", "=", accountId)
      .where(sql<boolean>`id = any(${sql.val(ids)}::text[])`)
      .orderBy("id")
      .execute();
    return rows.map((r) => noteOf(r) as NoteRow & { body: string });
  }
}
