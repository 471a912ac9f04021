// The note event outbox. Kysely only.
import type { Kysely } from "kysely";
import { noteEventTypeOf, type NoteEventMessage } from "@trove/contracts";

export class NoteEventsRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** Called inside the write's transaction (the repository is bound to it). */
  async add(accountId: string, e: { id: string; noteId: string; revision: number; operation: string; changedAt: number }): Promise<void> {
    await this.db
      .insertInto("notes.note_events")
      .values({ id: e.id, account_id: accountId, note_id: e.noteId, type: noteEventTypeOf(e.operation), revision: e.revision, operation: e.operation, changed_at: e.changedAt })
      .execute();
  }

  async pending(limit: number): Promise<NoteEventMessage[]> {
    const rows = await this.db.selectFrom("notes.note_events").selectAll().orderBy("changed_at").orderBy("id").limit(limit).execute();
    return rows.map((r) => ({
      id: r.id,
      accountId: r.account_id,
      type: r.type,
      noteId: r.note_id,
      revision: r.revision,
      operation: r.operation,
      changedAt: Number(r.changed_at),
    }));
  }

  async published(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.deleteFrom("notes.note_events").where("id", "in", ids).execute();
  }
}
