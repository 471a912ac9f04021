// The items' semantic index (see docs/decisions.md, "Embeddings"): one row per chunk of an item (title, then body
// windows), written by the embedding consumer. Vectors are stored portably (float4 little-endian in bytea), so the
// migration runs on PostgreSQL without pgvector; where the extension exists, the vector store adds its `vector`
// column and HNSW index at start (libs/search/pgvector.ts). Rows go with their item (cascade).
import type { Kysely } from "kysely";
import { createVectorTable } from "@trove/search";

export async function up(db: Kysely<any>): Promise<void> {
  await createVectorTable(db, "items", "items.items");
}
