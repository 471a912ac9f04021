// Every query of notes and their revisions. Kysely only; the owner's account id is part of every signature that
// touches a note.
import { sql, type Kysely } from "kysely";
import { inTransaction, type UnitOfWork } from "@trove/db";

export interface NoteRow extends NoteFields {
  id: string;
  account_id: string;
  current_revision: number;
  bytes: number;
  line_count: number;
  snapshot_revision: number;
  snapshot_bytes: number;
  archived_at: number | null;
  created_at: number;
  updated_at: number;
  /** Only when asked for. */
  body?: string;
  /** True when the body ends with a line break (an append then needs none before it). */
  ends_with_newline?: boolean;
}

export interface RevisionRow {
  note_id: string;
  revision: number;
  operation: string;
  title: string;
  storage: "full" | "delta";
  base_revision: number;
  bytes: number;
  line_count: number;
  client_request_id: string | null;
  metadata_diff: Record<string, unknown>;
  restored_from: number | null;
  created_at: number;
}

export interface NewRevision {
  noteId: string;
  revision: number;
  operation: string;
  title: string;
  storage: "full" | "delta";
  /** The whole body ('full') or what this revision appended ('delta'). */
  body: string;
  baseRevision: number;
  bytes: number;
  lineCount: number;
  clientRequestId: string | null;
  metadataDiff: object;
  restoredFrom: number | null;
  now: number;
}

/** Columns of a note row (its metadata) written by create and update. */
export interface NoteFields {
  title: string;
  kind: string | null;
  state: string | null;
  project_id: string | null;
  repository: string | null;
  repository_key: string | null;
  paths: string[];
  tags: string[];
  properties: Record<string, unknown>;
}

/** What the search index reads of a note. */
export interface SearchSource {
  id: string;
  account_id: string;
  title: string;
  tags: string[];
  properties: Record<string, unknown>;
  project_id: string | null;
  repository: string | null;
  repository_key: string | null;
  paths: string[];
  body_head: string;
}

export interface NoteFilters {
  /** Notes of a project (by id) or naming one of its repositories (by key): either will do (neither: none). */
  inProject?: { projectId?: string; repositoryKeys: string[] };
  /** Notes with a path that is this path, inside it, or a folder holding it. */
  aboutPath?: string;
  projectId?: string;
  repositoryKey?: string;
  kind?: string;
  state?: string;
  tagSlugs?: string[];
  archived: "false" | "true" | "any";
}

/** A note row's columns but the body. */
export const noteColumns = [
  "id",
  "account_id",
  "title",
  "kind",
  "state",
  "project_id",
  "repository",
  "repository_key",
  "paths",
  "tags",
  "properties",
  "current_revision",
  "bytes",
  "line_count",
  "snapshot_revision",
  "snapshot_bytes",
  "archived_at",
  "created_at",
  "updated_at",
] as const;
const meta = noteColumns;

const revisionColumns = [
  "note_id",
  "revision",
  "operation",
  "title",
  "storage",
  "base_revision",
  "bytes",
  "line_count",
  "client_request_id",
  "metadata_diff",
  "restored_from",
  "created_at",
] as const;

// int8 columns come back as strings from pg; JSON columns as objects (pg and PGlite alike).
export const noteOf = (r: Record<string, unknown>): NoteRow => ({
  ...(r as unknown as NoteRow),
  archived_at: r.archived_at == null ? null : Number(r.archived_at),
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});
const revisionOf = (r: Record<string, unknown>): RevisionRow => ({ ...(r as unknown as RevisionRow), created_at: Number(r.created_at) });

export class NotesRepository {
  constructor(private readonly db: Kysely<any>) {}

  /** One unit of work: `tx` runs on its transaction; the service records the write's events on `uow`. */
  async transaction<T>(fn: (tx: NotesRepository, uow: UnitOfWork) => Promise<T>): Promise<T> {
    return inTransaction(this.db, (uow) => fn(new NotesRepository(uow.db), uow));
  }

  /** Inserts a note; undefined when the account already made one with this create request id. */
  async insert(accountId: string, id: string, f: NoteFields, body: { text: string; bytes: number; lines: number }, createRequestId: string | null, now: number) {
    const row = await this.db
      .insertInto("notes.notes")
      .values({
        id,
        account_id: accountId,
        ...jsonFields(f),
        body: body.text,
        current_revision: 1,
        bytes: body.bytes,
        line_count: body.lines,
        snapshot_revision: 1,
        snapshot_bytes: body.bytes,
        create_request_id: createRequestId,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(["account_id", "create_request_id"]).where("create_request_id", "is not", null).doNothing())
      .returning("id")
      .executeTakeFirst();
    return row?.id as string | undefined;
  }

  async byCreateRequest(accountId: string, createRequestId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom("notes.notes")
      .select("id")
      .where("account_id", "=", accountId)
      .where("create_request_id", "=", createRequestId)
      .executeTakeFirst();
    return row?.id as string | undefined;
  }

  /** The note's metadata, locked until the transaction ends: writers of one note take turns, so none is lost. */
  async lock(accountId: string, id: string): Promise<NoteRow | undefined> {
    const row = await this.db
      .selectFrom("notes.notes")
      .select([...meta, sql<boolean>`right(body, 1) = E'\n'`.as("ends_with_newline")])
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .forUpdate()
      .executeTakeFirst();
    return row && noteOf(row);
  }

  async get(accountId: string, id: string, withBody: boolean): Promise<NoteRow | undefined> {
    const row = await this.db
      .selectFrom("notes.notes")
      .select(withBody ? [...meta, "body"] : [...meta])
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row && noteOf(row);
  }

  /** Sets the note's metadata and, when given, replaces its body or appends to it. */
  async update(
    accountId: string,
    id: string,
    f: NoteFields & { archived_at: number | null },
    change: { body?: { replace: string } | { append: string }; revision: number; bytes: number; lines: number; snapshot: boolean; now: number },
  ) {
    const body = change.body === undefined ? undefined : "replace" in change.body ? change.body.replace : sql<string>`body || ${change.body.append}`;
    await this.db
      .updateTable("notes.notes")
      .set({
        ...jsonFields(f),
        archived_at: f.archived_at,
        ...(body === undefined ? {} : { body }),
        current_revision: change.revision,
        bytes: change.bytes,
        line_count: change.lines,
        ...(change.snapshot ? { snapshot_revision: change.revision, snapshot_bytes: change.bytes } : {}),
        updated_at: change.now,
      })
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .execute();
  }

  /** Adds a revision. A 'full' revision of an append copies the body the note holds now (after its update). */
  async addRevision(accountId: string, r: NewRevision & { bodyFromNote?: boolean }) {
    const values = {
      note_id: r.noteId,
      account_id: accountId,
      revision: r.revision,
      operation: r.operation,
      title: r.title,
      storage: r.storage,
      base_revision: r.baseRevision,
      bytes: r.bytes,
      line_count: r.lineCount,
      client_request_id: r.clientRequestId,
      metadata_diff: JSON.stringify(r.metadataDiff),
      restored_from: r.restoredFrom,
      created_at: r.now,
    };
    if (!r.bodyFromNote) {
      await this.db.insertInto("notes.revisions").values({ ...values, body: r.body }).execute();
      return;
    }
    // The snapshot is copied inside the database: a long body is never carried to JavaScript and back.
    await this.db
      .insertInto("notes.revisions")
      .columns([...(Object.keys(values) as (keyof typeof values)[]), "body"])
      .expression(
        this.db
          .selectFrom("notes.notes")
          .select([...Object.entries(values).map(([k, v]) => sql`${v}`.as(k)), "body"])
          .where("account_id", "=", accountId)
          .where("id", "=", r.noteId),
      )
      .execute();
  }

  async revisionByRequest(noteId: string, clientRequestId: string): Promise<RevisionRow | undefined> {
    const row = await this.db
      .selectFrom("notes.revisions")
      .select([...revisionColumns])
      .where("note_id", "=", noteId)
      .where("client_request_id", "=", clientRequestId)
      .executeTakeFirst();
    return row && revisionOf(row);
  }

  async revision(noteId: string, revision: number): Promise<RevisionRow | undefined> {
    const row = await this.db.selectFrom("notes.revisions").select([...revisionColumns]).where("note_id", "=", noteId).where("revision", "=", revision).executeTakeFirst();
    return row && revisionOf(row);
  }

  /** The body at one revision: its snapshot and the appends after it, joined in the database. */
  async bodyAt(noteId: string, r: Pick<RevisionRow, "revision" | "base_revision">): Promise<string> {
    const row = await this.db
      .selectFrom("notes.revisions")
      .select(sql<string>`string_agg(body, '' order by revision)`.as("body"))
      .where("note_id", "=", noteId)
      .where("revision", ">=", r.base_revision)
      .where("revision", "<=", r.revision)
      .executeTakeFirst();
    return row?.body ?? "";
  }

  /** Revision summaries, newest first. */
  async history(noteId: string, limit: number, offset: number): Promise<RevisionRow[]> {
    const rows = await this.db
      .selectFrom("notes.revisions")
      .select([...revisionColumns])
      .where("note_id", "=", noteId)
      .orderBy("revision", "desc")
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(revisionOf);
  }

  /** The stored parts (snapshots and appends) from revision `from` to `to`, oldest first, to rebuild bodies in turn. */
  async parts(noteId: string, from: number, to: number): Promise<{ revision: number; storage: "full" | "delta"; body: string }[]> {
    return (await this.db
      .selectFrom("notes.revisions")
      .select(["revision", "storage", "body"])
      .where("note_id", "=", noteId)
      .where("revision", ">=", from)
      .where("revision", "<=", to)
      .orderBy("revision")
      .execute()) as { revision: number; storage: "full" | "delta"; body: string }[];
  }

  async list(accountId: string, f: NoteFilters, page: { limit: number; offset: number; body: boolean }): Promise<{ rows: NoteRow[]; count: number }> {
    const base = this.filtered(accountId, f);
    const [rows, count] = await Promise.all([
      base
        .select(page.body ? [...meta, "body"] : [...meta])
        .orderBy("updated_at", "desc")
        .orderBy("id", "desc")
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select(sql<string>`count(*)`.as("n")).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(noteOf), count: Number(count.n) };
  }

  /** Ids of the account's notes passing the filters: a subquery that narrows a search. */
  filteredIds(accountId: string, f: NoteFilters) {
    return this.filtered(accountId, f).select("id");
  }

  /** The current revision of some notes of the account. */
  async revisionsOf(accountId: string, ids: string[]): Promise<{ id: string; current_revision: number }[]> {
    if (ids.length === 0) return [];
    return (await this.db.selectFrom("notes.notes").select(["id", "current_revision"]).where("account_id", "=", accountId).where("id", "in", ids).execute()) as {
      id: string;
      current_revision: number;
    }[];
  }

  /** What the search index holds of some notes (the body cut at `bodyChars` characters). */
  async searchSources(ids: string[], bodyChars: number): Promise<SearchSource[]> {
    if (ids.length === 0) return [];
    return (await this.searchSourceQuery(bodyChars).where("id", "in", ids).execute()) as SearchSource[];
  }

  /** Every note after `after` (id order), for a rebuild of the index. */
  async searchSourcesAfter(after: string, limit: number, bodyChars: number): Promise<SearchSource[]> {
    return (await this.searchSourceQuery(bodyChars).where("id", ">", after).orderBy("id").limit(limit).execute()) as SearchSource[];
  }

  async hasNotes(): Promise<boolean> {
    return (await this.db.selectFrom("notes.notes").select("id").limit(1).executeTakeFirst()) !== undefined;
  }

  private searchSourceQuery(bodyChars: number) {
    return this.db
      .selectFrom("notes.notes")
      .select(["id", "account_id", "title", "tags", "properties", "project_id", "repository", "repository_key", "paths", sql<string>`left(body, ${bodyChars})`.as("body_head")]);
  }

  private filtered(accountId: string, f: NoteFilters) {
    let q = this.db.selectFrom("notes.notes").where("account_id", "=", accountId);
    if (f.archived === "false") q = q.where("archived_at", "is", null);
    if (f.archived === "true") q = q.where("archived_at", "is not", null);
    if (f.projectId !== undefined) q = q.where("project_id", "=", f.projectId);
    if (f.repositoryKey !== undefined) q = q.where("repository_key", "=", f.repositoryKey);
    if (f.kind !== undefined) q = q.where("kind", "=", f.kind);
    if (f.state !== undefined) q = q.where("state", "=", f.state);
    if (f.tagSlugs && f.tagSlugs.length > 0) q = q.where(sql<boolean>`tags ?| ${sql.val(f.tagSlugs)}::text[]`);
    const inProject = f.inProject;
    if (inProject) {
      q = q.where((eb) =>
        eb.or([
          ...(inProject.projectId !== undefined ? [eb("project_id", "=", inProject.projectId)] : []),
          ...(inProject.repositoryKeys.length > 0 ? [eb("repository_key", "in", inProject.repositoryKeys)] : []),
        ]),
      );
    }
    if (f.aboutPath !== undefined) {
      const path = f.aboutPath.replace(/\/+$/, "");
      q = q.where(sql<boolean>`exists (select 1 from (select rtrim(value, '/') as p from jsonb_array_elements_text(paths)) e
        where e.p = ${path}::text or starts_with(e.p, ${path}::text || '/') or (e.p <> '' and starts_with(${path}::text, e.p || '/')))`);
    }
    return q;
  }
}

function jsonFields(f: NoteFields) {
  return {
    title: f.title,
    kind: f.kind,
    state: f.state,
    project_id: f.project_id,
    repository: f.repository,
    repository_key: f.repository_key,
    paths: JSON.stringify(f.paths), tags: JSON.stringify(f.tags), properties: JSON.stringify(f.properties) };
}
