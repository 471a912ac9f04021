// The semantic index seen by services: each document's chunk vectors, stored in PostgreSQL (the source of truth,
// portable: float4 little-endian in bytea) and searched by one of two backends, chosen at start: pgvector's HNSW
// index where the database has the extension (always on PGlite), else an exact scan in memory by usearch
// (usearch-store.ts). See docs/decisions.md, "Embeddings".
import { sql, type Kysely } from "kysely";
import type { Restriction } from "./engine.ts";

export interface ChunkVector {
  chunk: number;
  kind: "title" | "body";
  /** The chunk's text: a semantic-only hit's snippet. */
  text: string;
  vector: Float32Array;
}

export interface VectorDoc {
  accountId: string;
  id: string;
  /** What made the vectors: a different model, dimension or content hash means embedding again. */
  model: string;
  dims: number;
  hash: string;
  chunks: ChunkVector[];
}

/** One chunk near a query: cosine similarity, higher is nearer. */
export interface NearestChunk {
  id: string;
  chunk: number;
  score: number;
}

export interface Nearest {
  chunks: NearestChunk[];
  exhausted: boolean;
}

export interface VectorStamp {
  model: string;
  dims: number;
  hash: string;
}

export interface VectorStore {
  /** "pgvector" or "usearch-exact". */
  readonly backend: string;
  /** False while it cannot answer `nearest` (the in-memory fallback loading at start). */
  ready(): boolean;
  /** Replaces the document's vectors (idempotent). */
  upsert(doc: VectorDoc): Promise<void>;
  remove(accountId: string, ids: string[]): Promise<void>;
  /** What each of the documents' stored vectors was made from (absent: none stored). */
  stamps(accountId: string, ids: string[]): Promise<Map<string, VectorStamp>>;
  /**
   * Of the `k` chunks of the account's documents nearest `query` (made by `model`), best first, those within
   * `restrict` (pgvector filters inside its scan and returns k; the fallback filters the k it found).
   * `exhausted`: the account has no chunk past these.
   */
  nearest(accountId: string, query: Float32Array, model: string, k: number, restrict?: Restriction): Promise<Nearest>;
  /**
   * The `k` chunks nearest `query` among the documents `restrict` selects only: for a filter that the widening
   * `nearest` could not get past (its nearest chunks all filtered out). Absent where `nearest` already filters
   * inside its scan (pgvector).
   */
  nearestWithin?(accountId: string, query: Float32Array, model: string, k: number, restrict: Restriction): Promise<Nearest>;
  /** The stored text of some chunks, keyed `id:chunk`. */
  texts(accountId: string, chunks: { id: string; chunk: number }[]): Promise<Map<string, string>>;
  /** Documents of `sourceTable` (id, account_id) with no vectors by `model`/`dims`, in id order after `afterId`. */
  missing(sourceTable: string, afterId: string, batch: number, model: string, dims: number): Promise<{ id: string; accountId: string }[]>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The portable table one service's chunk vectors live in (used by migrations: change it only by a new migration).
 * `vec` is float4 little-endian; `embedding vector(n)` is added at start where pgvector exists.
 */
export async function createVectorTable(db: Kysely<any>, schema: string, docTable: string): Promise<void> {
  await sql`create table ${sql.id(schema, "search_vectors")} (
    id text not null references ${sql.raw(docTable)} (id) on delete cascade,
    chunk int4 not null,
    account_id text not null,
    kind text not null,
    model text not null,
    dims int4 not null,
    hash text not null,
    text text not null,
    vec bytea not null,
    primary key (id, chunk)
  )`.execute(db);
  await sql`create index search_vectors_account on ${sql.id(schema, "search_vectors")} (account_id, id)`.execute(db);
}

/** The SQL every backend shares: rows in, rows out, stamps, what is missing. */
export class VectorRows {
  constructor(
    readonly db: Kysely<any>,
    /** "items.search_vectors" */
    readonly table: string,
  ) {}

  get ref() {
    return sql.raw(this.table);
  }

  /** Deletes the document's rows and writes the new ones in one transaction; `extra` adds backend columns. */
  async replace(doc: VectorDoc, extra?: (v: Float32Array) => Record<string, unknown>): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom(this.table).where("account_id", "=", doc.accountId).where("id", "=", doc.id).execute();
      if (doc.chunks.length === 0) return;
      await tx
        .insertInto(this.table)
        .values(
          doc.chunks.map((c) => ({
            id: doc.id,
            chunk: c.chunk,
            account_id: doc.accountId,
            kind: c.kind,
            model: doc.model,
            dims: doc.dims,
            hash: doc.hash,
            text: c.text,
            vec: toBytes(c.vector),
            ...extra?.(c.vector),
          })),
        )
        .execute();
    });
  }

  async remove(accountId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.deleteFrom(this.table).where("account_id", "=", accountId).where(sql<boolean>`id = any(${ids}::text[])`).execute();
  }

  async stamps(accountId: string, ids: string[]): Promise<Map<string, VectorStamp>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom(this.table)
      .select(["id", "model", "dims", "hash"])
      .where("account_id", "=", accountId)
      .where(sql<boolean>`id = any(${ids}::text[])`)
      .where("chunk", "=", 0)
      .execute();
    return new Map(rows.map((r) => [r.id as string, { model: r.model as string, dims: r.dims as number, hash: r.hash as string }]));
  }

  async texts(accountId: string, chunks: { id: string; chunk: number }[]): Promise<Map<string, string>> {
    if (chunks.length === 0) return new Map();
    const rows = await sql<{ id: string; chunk: number; text: string }>`
      select v.id, v.chunk, v.text from ${this.ref} v
      join unnest(${chunks.map((c) => c.id)}::text[], ${chunks.map((c) => c.chunk)}::int4[]) as w(id, chunk) on w.id = v.id and w.chunk = v.chunk
      where v.account_id = ${accountId}`.execute(this.db);
    return new Map(rows.rows.map((r) => [`${r.id}:${r.chunk}`, r.text]));
  }

  async missing(sourceTable: string, afterId: string, batch: number, model: string, dims: number, alsoMissing?: string): Promise<{ id: string; accountId: string }[]> {
    const rows = await sql<{ id: string; account_id: string }>`
      select d.id, d.account_id from ${sql.raw(sourceTable)} d
      where d.id > ${afterId} and not exists (
        select 1 from ${this.ref} v where v.id = d.id and v.chunk = 0 and v.model = ${model} and v.dims = ${dims}
        ${alsoMissing ? sql`and v.${sql.id(alsoMissing)} is not null` : sql``})
      order by d.id limit ${batch}`.execute(this.db);
    return rows.rows.map((r) => ({ id: r.id, accountId: r.account_id }));
  }

  /** Which of `ids` the restriction (the caller's filters and scope) lets through. */
  /** Every id the restriction selects (comma-joined in one row: a text[] of many ids is slow to parse). */
  async selected(restrict: Restriction): Promise<string[]> {
    const row = (await this.db.selectFrom(restrict.as("r")).select(sql<string | null>`string_agg(r.id, ',')`.as("ids")).executeTakeFirst()) as { ids: string | null } | undefined;
    return row?.ids ? row.ids.split(",") : [];
  }

  async allowed(restrict: Restriction, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom(restrict.as("r")).select("r.id").where(sql<boolean>`r.id = any(${ids}::text[])`).execute();
    return new Set(rows.map((r) => r.id as string));
  }
}

export function toBytes(v: Float32Array): Uint8Array {
  // A copy: the caller's array may be a view into a larger buffer.
  return new Uint8Array(Float32Array.from(v).buffer);
}

export function fromBytes(b: Uint8Array): Float32Array {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}
