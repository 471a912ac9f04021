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

export type NewMessage = Omit<MessageRow, "id">;

const table = "sources.messages";

export class MessagesRepository {
  constructor(private readonly db: Kysely<any>) {}

  async add(m: NewMessage): Promise<void> {
    await this.db
      .insertInto(table)
      .values({ id: newId(), ...m, confirmation: m.confirmation === null ? null : JSON.stringify(m.confirmation) })
      .execute();
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
