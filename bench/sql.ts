// Raw SQL for the bench scripts, on PGlite or PostgreSQL alike, through the Kysely instance @trove/db opens.
import { join } from "node:path";
import type { Database } from "@trove/db";

export type Db = Database["db"];
type Compiled = Parameters<Db["executeQuery"]>[0];
// kysely is a dependency of libs/db, not of the root package: its CompiledQuery is taken from there.
const { CompiledQuery } = (await import(Bun.resolveSync("kysely", join(import.meta.dir, "..", "libs", "db")))) as {
  CompiledQuery: { raw(sql: string, parameters?: readonly unknown[]): Compiled };
};

/** Runs `text` with $1.. parameters; answers the rows. */
export async function query<R = Record<string, unknown>>(db: Db, text: string, parameters: unknown[] = []): Promise<R[]> {
  return (await db.executeQuery(CompiledQuery.raw(text, parameters))).rows as R[];
}
