// The vector store where the database has pgvector (PGlite always; PostgreSQL when the server ships it): an
// `embedding vector(n)` column beside the portable bytea and an HNSW index on inner product (vectors are unit
// length, so inner product orders as cosine). Filters run inside the index scan (pgvector's iterative scan), so a
// narrow restriction still gets its k nearest.
import { sql, type Kysely } from "kysely";
import type { Restriction } from "./engine.ts";
import { VectorRows, type Nearest, type VectorDoc, type VectorStamp, type VectorStore } from "./vectors.ts";

/** Candidates the HNSW scan keeps per query (pgvector's ef_search; its maximum is 1,000). */
const efSearch = 200;

export class PgvectorStore implements VectorStore {
  readonly backend = "pgvector";
  private readonly rows: VectorRows;

  constructor(
    db: Kysely<any>,
    table: string,
    private readonly dims: number,
  ) {
    this.rows = new VectorRows(db, table);
  }

  /** Adds the vector column and its HNSW index when absent (idempotent; a first start over many rows builds the index). */
  async start(): Promise<void> {
    const db = this.rows.db;
    const [schema, name] = this.rows.table.split(".") as [string, string];
    await sql`alter table ${sql.id(schema, name)} add column if not exists embedding vector(${sql.lit(this.dims)})`.execute(db);
    await sql`create index if not exists ${sql.id(`${name}_hnsw`)} on ${sql.id(schema, name)} using hnsw (embedding vector_ip_ops)`.execute(db);
  }

  async stop(): Promise<void> {}

  ready(): boolean {
    return true;
  }

  upsert(doc: VectorDoc): Promise<void> {
    return this.rows.replace(doc, (v) => ({ embedding: literal(v) }));
  }

  remove(accountId: string, ids: string[]): Promise<void> {
    return this.rows.remove(accountId, ids);
  }

  stamps(accountId: string, ids: string[]): Promise<Map<string, VectorStamp>> {
    return this.rows.stamps(accountId, ids);
  }

  texts(accountId: string, chunks: { id: string; chunk: number }[]): Promise<Map<string, string>> {
    return this.rows.texts(accountId, chunks);
  }

  /** Rows written by the fallback before pgvector was there have no `embedding`: they count as missing. */
  missing(sourceTable: string, afterId: string, batch: number, model: string, dims: number) {
    return this.rows.missing(sourceTable, afterId, batch, model, dims, "embedding");
  }

  async nearest(accountId: string, query: Float32Array, model: string, k: number, restrict?: Restriction): Promise<Nearest> {
    const q = literal(query);
    return this.rows.db.transaction().execute(async (tx) => {
      // relaxed_order: the scan goes on past ef_search until k rows pass the filters (pgvector 0.8); order is fixed below.
      await sql`set local hnsw.iterative_scan = relaxed_order`.execute(tx);
      await sql`set local hnsw.ef_search = ${sql.lit(Math.min(1_000, Math.max(efSearch, k)))}`.execute(tx);
      const rows = await sql<{ id: string; chunk: number; score: number }>`
        select id, chunk, -(embedding <#> ${q}::vector) as score from ${this.rows.ref}
        where account_id = ${accountId} and model = ${model} and embedding is not null
        ${restrict ? sql`and id in (${restrict})` : sql``}
        order by embedding <#> ${q}::vector limit ${k}`.execute(tx);
      const chunks = rows.rows.map((r) => ({ id: r.id, chunk: r.chunk, score: Number(r.score) })).sort((a, b) => b.score - a.score);
      return { chunks, exhausted: chunks.length < k };
    });
  }
}

/** pgvector's text form, `[x,y,...]`. */
const literal = (v: Float32Array) => `[${Array.prototype.join.call(v, ",")}]`;
