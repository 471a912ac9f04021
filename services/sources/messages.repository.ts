// The mail each email inbox took in, newest first, with the confirmation link or code found in it. Rows go with
// their source.
import type { Kysely } from "kysely";
import { newId } from "@trove/db";
import { newestFirstPage } from "./page.ts";

export type MessageStatus = "added" | "duplicate" | "failed";

export interface Confirmation {
  code: string | null;
  link: string | null;
}

export interface MessageRow {
  id: string;
  source_id: string;
  account_id: string;
  message_id: string | null;
  sender: string;
  subject: string;
  received_at: number;
  size: number;
  item_id: string | null;
  status: MessageStatus;
  error: string | null;
  confirmation: Confirmation | null;
}

/** A message's listing for one inbox, with the spool row it came from (one listing per message and inbox). */
export type NewMessage = Omit<MessageRow, "id"> & { spool_id: string };

const table = "sources.messages";

export class MessagesRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** Lists a message for an inbox; false (nothing written) when it is listed there already (a job run again). */
  async add(m: NewMessage): Promise<boolean> {
    const row = await this.db
      .insertInto(table)
      .values({ id: newId(), ...m, confirmation: m.confirmation === null ? null : JSON.stringify(m.confirmation) })
      .onConflict((oc) => oc.columns(["spool_id", "source_id"]).doNothing())
      .returning("id")
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The inboxes a spooled message is listed in already. */
  async listedIn(spoolId: string): Promise<Set<string>> {
    const rows = await this.db.selectFrom(table).select("source_id").where("spool_id", "=", spoolId).execute();
    return new Set(rows.map((r) => r.source_id as string));
  }

  async list(accountId: string, sourceId: string, limit: number, offset: number): Promise<{ rows: MessageRow[]; count: number }> {
    const base = this.db.selectFrom(table).where("account_id", "=", accountId).where("source_id", "=", sourceId);
    return newestFirstPage<MessageRow>(base, "received_at", limit, offset);
  }

  /** The newest message that carried a confirmation link or code. */
  async latestConfirmation(accountId: string, sourceId: string): Promise<MessageRow | undefined> {
    return (await this.db
      .selectFrom(table)
      .selectAll()
      .where("account_id", "=", accountId)
      .where("source_id", "=", sourceId)
      .where("confirmation", "is not", null)
      .orderBy("received_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst()) as MessageRow | undefined;
  }
}
