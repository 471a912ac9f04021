// Semantic search's moving parts shared by the items and notes services: which vector store runs, keeping a
// service's vectors in step with its documents (embedding on the worker pool, one document at a time per process),
// and a query's nearest documents under the caller's filters. See docs/decisions.md, "Embeddings".
import { createHash } from "node:crypto";
import { sql, type Kysely } from "kysely";
import { chunkDefaults, chunkDocument, clamp, poolEmbedder, type Embedder } from "@trove/embed";
import { AppError } from "@trove/errors";
import type { Restriction } from "./engine.ts";
import { PgvectorStore } from "./pgvector.ts";
import { UsearchStore, type ChangeNotices } from "./usearch-store.ts";
import type { VectorStore } from "./vectors.ts";

/** Cosine similarity below which a chunk is not a semantic match (measured: a one-word query and an unrelated
 * paragraph score about 0.0-0.2 with this model, a related one 0.3-0.6). */
export const minSimilarity = 0.25;
/** The most chunks one query asks the store for while it widens its search past filtered-out documents. */
export const maxCandidateChunks = 4_000;
/** The most documents a semantic list holds: its `count` and its last page stop there. */
export const maxSemanticDocs = 1_000;
/** Characters of a document's body read for chunking (32 chunks of 160 words are far less). */
export const chunkSourceChars = 64 * 1024;

export type VectorBackend = "pgvector" | "usearch-exact" | "off";

export interface OpenVectorStoreOptions {
  db: Kysely<any>;
  kind: "postgres" | "pglite";
  table: string;
  embedder: Pick<Embedder, "id" | "dimension">;
  notices?: ChangeNotices;
  onError?: (err: unknown) => void;
}

/** The store this database can run: pgvector when the extension is (or can be made) there, else the fallback. */
export async function openVectorStore(o: OpenVectorStoreOptions): Promise<VectorStore> {
  const store =
    (await hasPgvector(o.db, o.kind))
      ? new PgvectorStore(o.db, o.table, o.embedder.dimension)
      : new UsearchStore(o.db, o.table, o.embedder.id, o.embedder.dimension, o.notices, o.onError);
  await store.start();
  return store;
}

/** Creates the extension when the server has it; false when it cannot (not installed, or no right to). */
export async function hasPgvector(db: Kysely<any>, kind: "postgres" | "pglite"): Promise<boolean> {
  if (kind === "pglite") return true;
  try {
    await sql`create extension if not exists vector`.execute(db);
    return true;
  } catch (err) {
    // Two processes creating it at once: the extension exists either way.
    return (err as { code?: string }).code === "23505";
  }
}

/** What GET /api/health reports: the backend the services chose on this database (they created pgvector if they could). */
export async function vectorBackend(db: Kysely<any>, kind: "postgres" | "pglite", enabled: boolean): Promise<VectorBackend> {
  if (!enabled) return "off";
  if (kind === "pglite") return "pgvector";
  const rows = await sql`select 1 from pg_extension where extname = 'vector'`.execute(db);
  return rows.rows.length > 0 ? "pgvector" : "usearch-exact";
}

/**
 * Chunks per background embedding task. One task at a time per process (the gate), and a small task (about half a
 * second) bounds how long a query's embedding waits behind it on the embedding thread.
 */
export const backgroundBatch = 8;

/** One background embedding at a time per process: a backlog of embeddings must not keep a query's embedding waiting. */
class Gate {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => {});
    return next;
  }
}
export const embedGate = new Gate();

export interface VectorSource {
  id: string;
  accountId: string;
  title: string;
  body: string | null;
}

/** What the embedding consumer reads of a service's documents: the title and the start of the body column. */
export function vectorSources(db: Kysely<any>, table: string, bodyColumn: string) {
  return async (accountId: string, ids: string[]): Promise<VectorSource[]> => {
    if (ids.length === 0) return [];
    const rows = await sql<{ id: string; account_id: string; title: string; body: string | null }>`
      select id, account_id, title, left(${sql.ref(bodyColumn)}, ${chunkSourceChars}) as body from ${sql.raw(table)}
      where account_id = ${accountId} and id = any(${ids}::text[])`.execute(db);
    return rows.rows.map((r) => ({ id: r.id, accountId: r.account_id, title: r.title, body: r.body }));
  };
}

/** A document's chunks as embedded, and the hash that says whether they changed (chunking options included). */
function chunksOf(s: VectorSource) {
  const chunks = chunkDocument({ title: s.title, body: s.body });
  const hash = createHash("sha256").update(JSON.stringify([chunkDefaults, chunks.map((c) => c.text)])).digest("base64url");
  return { chunks, hash };
}

/** Keeps a service's vectors in step with its documents: from events (idempotent, order-free) and a backfill. */
export class VectorIndexer {
  constructor(
    private readonly store: VectorStore,
    private readonly embedder: Embedder,
    /** The documents among `ids` that exist, with their title and the start of their body. */
    private readonly read: (accountId: string, ids: string[]) => Promise<VectorSource[]>,
    /** The table of the documents ("items.items"), for the backfill. */
    private readonly sourceTable: string,
  ) {}

  async refresh(accountId: string, ids: string[]): Promise<void> {
    const sources = await this.read(accountId, ids);
    const found = new Set(sources.map((s) => s.id));
    await this.store.remove(accountId, ids.filter((id) => !found.has(id)));
    const stamps = await this.store.stamps(accountId, [...found]);
    for (const s of sources) {
      const { chunks, hash } = chunksOf(s);
      const stamp = stamps.get(s.id);
      if (stamp && stamp.hash === hash && stamp.model === this.embedder.id && stamp.dims === this.embedder.dimension) continue;
      if (chunks.length === 0) {
        await this.store.remove(accountId, [s.id]);
        continue;
      }
      const vectors: Float32Array[] = [];
      for (let i = 0; i < chunks.length; i += backgroundBatch) {
        vectors.push(...(await embedGate.run(() => this.embedder.embed(chunks.slice(i, i + backgroundBatch).map((c) => c.text)))));
      }
      await this.store.upsert({
        accountId,
        id: s.id,
        model: this.embedder.id,
        dims: this.embedder.dimension,
        hash,
        chunks: chunks.map((c, i) => ({ chunk: c.index, kind: c.kind, text: c.text, vector: vectors[i]! })),
      });
    }
  }

  /** Embeds every document with no vectors by the current model (new install, model change), in id order. */
  async backfill(isStopped: () => boolean, batch = 50): Promise<number> {
    let n = 0;
    for (let after = ""; !isStopped(); ) {
      const missing = await this.store.missing(this.sourceTable, after, batch, this.embedder.id, this.embedder.dimension);
      if (missing.length === 0) break;
      for (const m of missing) {
        if (isStopped()) break;
        await this.refresh(m.accountId, [m.id]);
        n++;
      }
      after = missing.at(-1)!.id;
    }
    return n;
  }
}

/** A document a query found by meaning: its best chunk's similarity and which chunk that is. */
export interface SemanticHit {
  id: string;
  score: number;
  chunk: number;
}

export class SemanticSearch {
  constructor(
    readonly store: VectorStore,
    private readonly embedder: Embedder,
  ) {}

  /** The query's vector, embedded on the pool (the one embedding on the request path). */
  async embedQuery(q: string): Promise<Float32Array> {
    if (!this.store.ready()) throw new AppError("semantic_unavailable", "semantic search is not available yet: the vector index is loading");
    const [v] = await this.embedder.embed([clamp(q, 4_096)]);
    return v!;
  }

  /**
   * The documents nearest the query within `restrict`, best first, at most `want` of them (and at most
   * maxSemanticDocs), each above minSimilarity. Asks the store for chunks, doubling while filters or several
   * chunks of one document leave fewer documents than wanted, up to maxCandidateChunks.
   */
  async nearest(accountId: string, query: Float32Array, want: number, restrict?: Restriction): Promise<SemanticHit[]> {
    const goal = Math.min(want, maxSemanticDocs);
    for (let k = Math.min(maxCandidateChunks, Math.max(64, goal * 4)); ; k = Math.min(maxCandidateChunks, k * 2)) {
      const { chunks, exhausted } = await this.store.nearest(accountId, query, this.embedder.id, k, restrict);
      const { hits, belowFloor } = documentsOf(chunks, goal);
      // Done when enough documents, when the floor was reached, when the store had no more, or at the bound.
      if (hits.length >= goal || belowFloor || exhausted) return hits;
      // A filter passed too few of the nearest chunks (a rare tag, near-duplicates crowding the top), and the store
      // cannot filter inside its scan (the fallback): scan the filtered documents alone. Before the bound too when
      // this round found under a quarter of the documents wanted: the fallback scans every vector of the account
      // each round, and widening would take two or more scans more (a tag on 15% of 100k items: 437 ms at p95).
      if (restrict && this.store.nearestWithin && (k >= maxCandidateChunks || hits.length * 4 < goal)) {
        return documentsOf((await this.store.nearestWithin(accountId, query, this.embedder.id, maxCandidateChunks, restrict)).chunks, goal).hits;
      }
      if (k >= maxCandidateChunks) return hits;
    }
  }

  /** The best chunk's text of each hit, keyed by id: a semantic-only hit's snippet. */
  async chunkTexts(accountId: string, hits: SemanticHit[]): Promise<Map<string, string>> {
    const texts = await this.store.texts(accountId, hits);
    return new Map(hits.map((h) => [h.id, texts.get(`${h.id}:${h.chunk}`) ?? ""]));
  }
}

/** What a service's runtime gives semantic search (libs/host's Runtime has it all). */
export interface SemanticRuntime {
  config: { semantic: boolean; embedTimeoutMs: number };
  database: { db: Kysely<any>; kind: "postgres" | "pglite" };
  /** The process's embedding thread (libs/host/tasks.ts serves the embed task). */
  embedWorkers: Parameters<typeof poolEmbedder>[0];
  bus: ChangeNotices;
  log: { error(obj: object, msg: string): void };
}

/** A durable consumer handed the data of a batch of events; resolving acknowledges them (the event log's shape). */
export type ConsumeDocumentEvents = (
  opts: { name: string; filter: string; ackWaitMs: number; retryDelaysMs: number[] },
  handle: (events: { data: unknown }[]) => Promise<void>,
) => Promise<{ stop(): Promise<void> }>;

export interface SemanticIndexOptions {
  /** The durable consumer that embeds from the service's events (its event log's `consume`), their filter, and the document each names. */
  consumer: {
    durable: string;
    filter: string;
    documentOf: (event: unknown) => { accountId: string; id: string };
    consume: ConsumeDocumentEvents;
  };
  /** "items.search_vectors" */
  table: string;
  /** "items.items": the documents, for the backfill. */
  sourceTable: string;
  /** The documents' body column ("content_markdown"). */
  bodyColumn: string;
}

/**
 * A service's semantic side, started (undefined with TROVE_SEMANTIC=off): the store, its upkeep (the consumer and the start-up backfill) and its search.
 * Embedding waits its turn (one document at a time per process) and may wait for a model load: the consumer has a
 * long acknowledgement window, and failures (model unavailable) are retried for as long as it takes.
 */
export async function startSemanticIndex(rt: SemanticRuntime, o: SemanticIndexOptions) {
  if (!rt.config.semantic) return undefined;
  const { db, kind } = rt.database;
  const embedder = poolEmbedder(rt.embedWorkers, { deadlineMs: rt.config.embedTimeoutMs });
  const store = await openVectorStore({ db, kind, table: o.table, embedder, notices: rt.bus, onError: (err) => rt.log.error({ err }, "loading the vector cache failed") });
  const indexer = new VectorIndexer(store, embedder, vectorSources(db, o.sourceTable, o.bodyColumn), o.sourceTable);
  const consumer = await o.consumer.consume(
    { name: o.consumer.durable, filter: o.consumer.filter, ackWaitMs: 10 * 60_000, retryDelaysMs: [2_000, 10_000, 60_000] },
    async (events) => {
      // One refresh per account for the documents a batch names (each once): refreshing is idempotent and order-free.
      const byAccount = new Map<string, Set<string>>();
      for (const e of events) {
        const doc = o.consumer.documentOf(e.data);
        byAccount.set(doc.accountId, (byAccount.get(doc.accountId) ?? new Set()).add(doc.id));
      }
      for (const [accountId, ids] of byAccount) await indexer.refresh(accountId, [...ids]);
    },
  );
  let stopped = false;
  // Documents saved before semantic search was on, or embedded by another model, are embedded in the background.
  const backfill = indexer.backfill(() => stopped).catch((err) => rt.log.error({ err }, "the embedding backfill failed; it resumes at the next start"));
  return {
    store,
    indexer,
    search: new SemanticSearch(store, embedder),
    stop: async () => {
      stopped = true;
      await consumer.stop();
      await backfill;
      await store.stop();
    },
  };
}

/** The documents of chunks (best first), each at its best chunk, down to minSimilarity, at most `goal`. */
function documentsOf(chunks: { id: string; chunk: number; score: number }[], goal: number): { hits: SemanticHit[]; belowFloor: boolean } {
  const best = new Map<string, SemanticHit>();
  for (const c of chunks) {
    if (c.score < minSimilarity) return { hits: [...best.values()].slice(0, goal), belowFloor: true };
    if (!best.has(c.id)) best.set(c.id, { id: c.id, score: c.score, chunk: c.chunk });
  }
  return { hits: [...best.values()].slice(0, goal), belowFloor: false };
}
