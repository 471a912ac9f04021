// @trove/eventlog: one positioned event log per database, its relay, and consumers that keep a durable position.
import { join } from "node:path";
import { migrateSchema } from "@trove/db";
import type { Kysely } from "kysely";

export { EventLog, type EventLogOptions } from "./log.ts";
export type { BatchHandler, ConsumeOptions, EventInput, Events, LoggedEvent } from "./types.ts";
export { matches as subjectMatches } from "./filters.ts";

/** The log's own schema; the host migrates it before any service, whose migrations may move rows into it. */
export const eventLogSchema = "eventlog";

/** The log's migrations folder. */
export const eventLogMigrations = join(import.meta.dir, "migrations");

export function migrateEventLog(db: Kysely<any>): Promise<void> {
  return migrateSchema(db, eventLogSchema, eventLogMigrations);
}
