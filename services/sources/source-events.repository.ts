// A source's event log: what happened to it (created, runs and what they added, errors, pauses, settings),
// newest first. Rows go with their source.
import type { Kysely } from "kysely";
import { newId } from "@trove/db";
import { newestFirstPage } from "./page.ts";

export type SourceEventType = "created" | "run" | "error" | "paused" | "resumed" | "settings_changed" | "message";

export interface SourceEventRow {
  id: string;
  source_id: string;
  account_id: string;
  type: SourceEventType;
  at: number;
  items_added: number;
  message: string | null;
  detail: Record<string, unknown>;
}

export interface NewSourceEvent {
  type: SourceEventType;
  at: number;
  itemsAdded?: number;
  message?: string | null;
  detail?: Record<string, unknown>;
}

const table = "sources.source_events";

export class SourceEventsRepository {
  constructor(private readonly db: Kysely<any>) {}

  async add(accountId: string, sourceId: string, e: NewSourceEvent): Promise<void> {
    await this.db
      .insertInto(table)
      .values({
        id: newId(),
        source_id: sourceId,
        account_id: accountId,
        type: e.type,
        at: e.at,
        items_added: e.itemsAdded ?? 0,
        message: e.message ?? null,
        detail: JSON.stringify(e.detail ?? {}),
      })
      .execute();
  }

  async list(accountId: string, sourceId: string, limit: number, offset: number): Promise<{ rows: SourceEventRow[]; count: number }> {
    const base = this.db.selectFrom(table).where("account_id", "=", accountId).where("source_id", "=", sourceId);
    return newestFirstPage<SourceEventRow>(base, "at", limit, offset);
  }
}
