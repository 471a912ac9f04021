import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>) {
  // The notes export walks one account's notes in id order, a page at a time (keyset, so no note is read twice
  // or skipped when others are written meanwhile).
  await sql`create index notes_account_id on notes.notes (account_id, id)`.execute(db);
}
