// The vector store where the database has no pgvector: rows stay in PostgreSQL (the source of truth); a cache of
// them lives in one dedicated thread (usearch-worker.ts) that usearch scans exactly. Loaded at start in the
// background (semantic search answers 503 until then); every change is re-read from the database by every
// process that holds a cache, told by a bus broadcast, so replicas stay in step.
import { AppError } from "@trove/errors";
import { sql, type Kysely } from "kysely";
import type { Restriction } from "./engine.ts";
import { fromBytes, VectorRows, type Nearest, type VectorDoc, type VectorStamp, type VectorStore } from "./vectors.ts";
import type { WorkerIn, WorkerOut } from "./usearch-worker.ts";

/** How long one search may take in the thread before it is answered 503. */
const searchDeadlineMs = 5_000;
/** Rows read per statement while loading. */
const loadBatch = 2_000;

/** What the store needs of the bus: broadcasts heard by every process (optional: one process alone re-reads locally). */
export interface ChangeNotices {
  broadcast(subject: string, data: unknown): Promise<void>;
  listen(subject: string, handler: (data: unknown) => void | Promise<void>): { stop(): Promise<void> | void };
}

export class UsearchStore implements VectorStore {
  readonly backend = "usearch-exact";
  private readonly rows: VectorRows;
  private worker: Worker | undefined;
  private loaded = false;
  private loading: Promise<void> | undefined;
  private stopped = false;
  /** Documents changed while loading: the load skips them (their fresh rows are already in the thread). */
  private touched = new Set<string>();
  private nextReq = 1;
  private pending = new Map<number, { resolve: (o: WorkerOut) => void; timer: ReturnType<typeof setTimeout> }>();
  private listener: { stop(): Promise<void> | void } | undefined;

  constructor(
    db: Kysely<any>,
    table: string,
    private readonly model: string,
    private readonly dims: number,
    private readonly notices?: ChangeNotices,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.rows = new VectorRows(db, table);
  }

  private get subject() {
    return `vectors.${this.rows.table}.changed`;
  }

  async start(): Promise<void> {
    this.worker = new Worker(new URL("./usearch-worker.ts", import.meta.url));
    this.worker.onmessage = (e: MessageEvent<WorkerOut>) => {
      const p = this.pending.get(e.data.req);
      if (!p) return;
      this.pending.delete(e.data.req);
      clearTimeout(p.timer);
      p.resolve(e.data);
    };
    this.listener = this.notices?.listen(this.subject, (data) => {
      const { accountId, ids } = data as { accountId: string; ids: string[] };
      return this.reload(accountId, ids);
    });
    this.loading = this.load().catch((err) => this.onError(err));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.listener?.stop();
    await this.loading;
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.resolve({ req: 0, error: "stopped" });
    }
    this.worker?.terminate();
  }

  ready(): boolean {
    return this.loaded;
  }

  /** Resolves once the cache holds every stored vector (benchmarks wait for it). */
  async whenLoaded(): Promise<void> {
    await this.loading;
  }

  async upsert(doc: VectorDoc): Promise<void> {
    await this.rows.replace(doc);
    await this.changed(doc.accountId, [doc.id]);
  }

  async remove(accountId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.rows.remove(accountId, ids);
    await this.changed(accountId, ids);
  }

  stamps(accountId: string, ids: string[]): Promise<Map<string, VectorStamp>> {
    return this.rows.stamps(accountId, ids);
  }

  texts(accountId: string, chunks: { id: string; chunk: number }[]): Promise<Map<string, string>> {
    return this.rows.texts(accountId, chunks);
  }

  missing(sourceTable: string, afterId: string, batch: number, model: string, dims: number) {
    return this.rows.missing(sourceTable, afterId, batch, model, dims);
  }

  async nearest(accountId: string, query: Float32Array, model: string, k: number, restrict?: Restriction): Promise<Nearest> {
    if (!this.loaded) throw new AppError("semantic_unavailable", "semantic search is not available yet: the vector cache is loading");
    if (model !== this.model) return { chunks: [], exhausted: true };
    const out = await this.ask({ op: "search", req: 0, accountId, query, k });
    if ("error" in out) throw new AppError("semantic_unavailable", `semantic search failed: ${out.error}`);
    if (!("ids" in out)) return { chunks: [], exhausted: true };
    const hits = out.ids.map((id, i) => ({ id, chunk: out.chunks[i]!, score: out.scores[i]! }));
    const exhausted = hits.length < k;
    if (!restrict) return { chunks: hits, exhausted };
    const allowed = await this.rows.allowed(restrict, [...new Set(out.ids)]);
    return { chunks: hits.filter((h) => allowed.has(h.id)), exhausted };
  }

  async nearestWithin(accountId: string, query: Float32Array, model: string, k: number, restrict: Restriction): Promise<Nearest> {
    if (!this.loaded) throw new AppError("semantic_unavailable", "semantic search is not available yet: the vector cache is loading");
    if (model !== this.model) return { chunks: [], exhausted: true };
    const only = await this.rows.selected(restrict);
    if (only.length === 0) return { chunks: [], exhausted: true };
    const out = await this.ask({ op: "search", req: 0, accountId, query, k, only });
    if ("error" in out) throw new AppError("semantic_unavailable", `semantic search failed: ${out.error}`);
    if (!("ids" in out)) return { chunks: [], exhausted: true };
    return { chunks: out.ids.map((id, i) => ({ id, chunk: out.chunks[i]!, score: out.scores[i]! })), exhausted: out.ids.length < k };
  }

  /** Vectors and bytes the thread holds (benchmarks report memory). */
  async stats(): Promise<{ vectors: number; bytes: number }> {
    const out = await this.ask({ op: "stats", req: 0 });
    return "vectors" in out ? out : { vectors: 0, bytes: 0 };
  }

  private ask(m: Extract<WorkerIn, { req: number }>): Promise<WorkerOut> {
    const worker = this.worker;
    if (!worker || this.stopped) return Promise.resolve({ req: 0, error: "the vector cache is stopped" });
    const req = this.nextReq++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(req);
        resolve({ req, error: `no answer within ${searchDeadlineMs} ms` });
      }, searchDeadlineMs);
      this.pending.set(req, { resolve, timer });
      worker.postMessage({ ...m, req });
    });
  }

  private async changed(accountId: string, ids: string[]): Promise<void> {
    if (this.notices) await this.notices.broadcast(this.subject, { accountId, ids });
    else await this.reload(accountId, ids);
  }

  /** The thread's copy of some documents, re-read from the database (gone there: gone here). */
  private async reload(accountId: string, ids: string[]): Promise<void> {
    if (!this.worker || this.stopped) return;
    if (!this.loaded) for (const id of ids) this.touched.add(id);
    const rows = await sql<{ id: string; chunk: number; vec: Uint8Array }>`
      select id, chunk, vec from ${this.rows.ref}
      where account_id = ${accountId} and id = any(${ids}::text[]) and model = ${this.model} and dims = ${this.dims}
      order by id, chunk`.execute(this.rows.db);
    this.worker.postMessage({ op: "remove", accountId, ids } satisfies WorkerIn);
    this.post(accountId, rows.rows);
  }

  /** Groups rows (ordered by id, chunk) by document and hands each to the thread. */
  private post(accountId: string | null, rows: { id: string; chunk: number; vec: Uint8Array; account_id?: string }[]) {
    let i = 0;
    while (i < rows.length) {
      const first = rows[i]!;
      let j = i;
      while (j < rows.length && rows[j]!.id === first.id) j++;
      const vectors = new Float32Array((j - i) * this.dims);
      for (let r = i; r < j; r++) vectors.set(fromBytes(rows[r]!.vec), (r - i) * this.dims);
      const m: WorkerIn = { op: "put", accountId: accountId ?? first.account_id!, id: first.id, chunks: rows.slice(i, j).map((r) => r.chunk), vectors, dims: this.dims };
      this.worker!.postMessage(m, [vectors.buffer]);
      i = j;
    }
  }

  private async load(): Promise<void> {
    let after = { id: "", chunk: -1 };
    for (;;) {
      if (this.stopped) return;
      const batch = await sql<{ id: string; chunk: number; account_id: string; vec: Uint8Array }>`
        select id, chunk, account_id, vec from ${this.rows.ref}
        where (id, chunk) > (${after.id}, ${after.chunk}) and model = ${this.model} and dims = ${this.dims}
        order by id, chunk limit ${loadBatch}`.execute(this.rows.db);
      const rows = batch.rows;
      if (rows.length === 0) break;
      // A document cut by the batch's end is sent whole with the next batch.
      const lastId = rows.at(-1)!.id;
      const cut = rows.length === loadBatch && rows[0]!.id !== lastId;
      const whole = cut ? rows.filter((r) => r.id !== lastId) : rows;
      this.post(null, whole.filter((r) => !this.touched.has(r.id)));
      after = cut ? { id: lastId, chunk: -1 } : { id: lastId, chunk: rows.at(-1)!.chunk };
      if (rows.length < loadBatch) break;
    }
    this.touched.clear();
    this.loaded = true;
  }
}
