// The notes' semantic index: one row per chunk of a note (title, then body windows), as for items (see
// libs/search/vectors.ts createVectorTable). Rows go with their note (cascade).
import type { Kysely } from "kysely";
import { createVectorTable } from "@trove/search";

export async function up(db: Kysely<any>): Promise<void> {
  await createVectorTable(db, "notes", "notes.notes");
}
