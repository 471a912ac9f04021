// Database faults a test can turn on and off: a schema (or some of its tables) that refuses every write, as a
// database that has gone read-only would, on PGlite and PostgreSQL alike. Reads keep working.
// A statement trigger rather than a `check (false)` constraint: it refuses deletes and truncates too, and its error
// (SQLSTATE 25006, read_only_sql_transaction) is one no code of ours mistakes for a domain outcome, as it might a
// check or unique violation. The triggers live in the database, so they outlast a restart until acceptWrites.
import { sql, type Kysely } from "kysely";

const fn = "trove_test_refuse_writes";
/** Kysely's bookkeeping: left writable so that a Trove restarted under the fault still starts. */
const bookkeeping = ["kysely_migration", "kysely_migration_lock"];

async function tablesOf(db: Kysely<any>, schema: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = ${schema} and c.relkind in ('r', 'p') order by c.relname`.execute(db);
  return rows.map((r) => r.name);
}

/**
 * From now on every insert, update, delete and truncate on `schema`'s tables (or only on `tables`) fails with
 * SQLSTATE 25006, until acceptWrites. Statements already running finish as they would.
 */
export async function refuseWrites(db: Kysely<any>, schema: string, tables?: string[]): Promise<void> {
  const existing = await tablesOf(db, schema);
  const chosen = tables ?? existing.filter((t) => !bookkeeping.includes(t));
  const missing = chosen.filter((t) => !existing.includes(t));
  if (missing.length > 0) throw new Error(`refuseWrites: no table ${missing.map((t) => `${schema}.${t}`).join(", ")}`);
  if (chosen.length === 0) throw new Error(`refuseWrites: schema ${schema} has no tables`);
  await sql`
    create or replace function ${sql.id(schema, fn)}() returns trigger language plpgsql as $$
    begin
      raise exception 'writes to %.% are refused (a fault the test turned on)', tg_table_schema, tg_table_name
        using errcode = '25006';
    end $$`.execute(db);
  for (const table of chosen) {
    await sql`drop trigger if exists ${sql.id(fn)} on ${sql.id(schema, table)}`.execute(db);
    await sql`
      create trigger ${sql.id(fn)} before insert or update or delete or truncate on ${sql.id(schema, table)}
      for each statement execute function ${sql.id(schema, fn)}()`.execute(db);
  }
}

/** Ends refuseWrites on `schema`: every table takes writes again. */
export async function acceptWrites(db: Kysely<any>, schema: string): Promise<void> {
  // The triggers depend on the function: dropping it drops them all.
  await sql`drop function if exists ${sql.id(schema, fn)}() cascade`.execute(db);
}
