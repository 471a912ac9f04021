// Raw SQL for the bench scripts, on PGlite or PostgreSQL alike, through the Kysely instance @trove/db opens.
import { CompiledQuery } from "kysely";
import type { Database } from "@trove/db";

export type Db = Database["db"];

/** Runs `text` with $1.. parameters; answers the rows. */
export async function query<R = Record<string, unknown>>(db: Db, text: string, parameters: unknown[] = []): Promise<R[]> {
  return (await db.executeQuery(CompiledQuery.raw(text, parameters))).rows as R[];
}
