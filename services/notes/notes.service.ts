// Note rules: every write is one numbered revision made under the note's row lock (so concurrent writers take
// turns and numbers stay dense), expectedRevision guards replacements and metadata changes, a repeated
// clientRequestId returns the first receipt, and history is never rewritten. Each revision's event is recorded in
// the revision's own unit of work.
import { type Caller, noteBodyBytes, notePageBytes, type RawReply, tagSlug } from "@trove/contracts";
import { newId, nowSeconds } from "@trove/db";
import { AppError } from "@trove/errors";
import { overview, searchWindows, sliceLines, splitLines } from "@trove/reader";
import { markdownDocument } from "./frontmatter.ts";
import { bareNoteId, manifestOf, revisionSummary, type MetadataDiff, type Operation } from "./note-shapes.ts";
import type { LinksService } from "./links.service.ts";
import type { NoteEvents } from "./note-events.ts";
import type { NoteFields, NoteFilters, NoteRow, NotesRepository, RevisionRow } from "./notes.repository.ts";
import type { ProjectsService } from "./projects.service.ts";
import { repositoryKey } from "./repository-address.ts";


export interface MetadataInput {
  tags?: string[];
  project?: string | null;
  repository?: string | null;
  paths?: string[];
  kind?: string | null;
  state?: string | null;
  properties?: Record<string, unknown>;
}

export interface Receipt {
  note: { id: string; title: string; currentRevision: number };
  revision: { revisionNumber: number; operation: Operation };
  metadataDiff: MetadataDiff;
}

/** Appended text joins the body on a new line. */
type BodyChange = { replace: string } | { append: string };

interface Write {
  operation: Operation;
  title?: string;
  metadata?: MetadataInput;
  body?: BodyChange;
  archived?: boolean;
  restoredFrom?: number;
}

/** A snapshot is stored once the appends since the last one outweigh it (or number this many): reads of any
 * revision then join at most about twice the body, and storage stays linear in what was written. */
const snapshotEvery = 256;
const minSnapshotBytes = 64 * 1024;
const propertiesBytes = 64 * 1024;

const bytesOf = (s: string) => Buffer.byteLength(s, "utf8");
const emptyDiff = (): MetadataDiff => ({ tagsAdded: [], tagsRemoved: [] });

export class NotesService {
  constructor(
    private readonly repo: NotesRepository,
    private readonly projects: ProjectsService,
    private readonly links: LinksService,
    private readonly events: NoteEvents,
  ) {}

  // ---- writes ------------------------------------------------------------------------------------------------

  async create(caller: Caller, body: { title: string; bodyMarkdown?: string; clientRequestId?: string } & MetadataInput): Promise<Receipt> {
    const text = body.bodyMarkdown ?? "";
    const size = bytesOf(text);
    if (size > noteBodyBytes) throw tooLarge();
    const empty: NoteFields = { title: body.title, kind: null, state: null, project_id: null, repository: null, repository_key: null, paths: [], tags: [], properties: {} };
    const { fields, diff } = await this.applyMetadata(caller.accountId, empty, body);
    const crid = body.clientRequestId ?? null;
    const id = newId();
    const now = nowSeconds();
    const lines = splitLines(text).length;
    const made = await this.repo.transaction(async (tx, uow) => {
      const inserted = await tx.insert(caller.accountId, id, fields, { text, bytes: size, lines }, crid, now);
      if (!inserted) return undefined;
      await tx.addRevision(caller.accountId, {
        noteId: id,
        revision: 1,
        operation: "create",
        title: fields.title,
        storage: "full",
        body: text,
        baseRevision: 1,
        bytes: size,
        lineCount: lines,
        clientRequestId: crid,
        metadataDiff: diff,
        restoredFrom: null,
        now,
      });
      await this.events.revisionMade(uow, caller.accountId, { noteId: id, revision: 1, operation: "create" });
      return id;
    });
    if (made) return { note: { id, title: fields.title, currentRevision: 1 }, revision: { revisionNumber: 1, operation: "create" }, metadataDiff: diff };
    // The same create was made before (or is being made right now; the insert waited for it): its receipt.
    const existing = await this.repo.byCreateRequest(caller.accountId, crid!);
    const first = existing && (await this.repo.revisionByRequest(existing, crid!));
    if (!existing || !first) throw new AppError("internal_error", "a repeated create found no first receipt");
    return receiptOf(existing, first);
  }

  async update(
    caller: Caller,
    id: string,
    body: { expectedRevision?: number; title?: string; bodyMarkdown?: string; clientRequestId?: string } & MetadataInput,
  ): Promise<Receipt> {
    const { expectedRevision, title, bodyMarkdown, clientRequestId, ...metadata } = body;
    const replaces = title !== undefined || bodyMarkdown !== undefined;
    return this.write(caller, id, expectedRevision, true, clientRequestId, {
      operation: replaces ? "replace" : "metadata",
      title,
      metadata,
      body: bodyMarkdown === undefined ? undefined : { replace: bodyMarkdown },
    });
  }

  async append(caller: Caller, id: string, body: { bodyMarkdown: string; expectedRevision?: number; clientRequestId?: string }): Promise<Receipt> {
    return this.write(caller, id, body.expectedRevision, false, body.clientRequestId, { operation: "append", body: { append: body.bodyMarkdown } });
  }

  async setArchived(caller: Caller, id: string, archived: boolean, body: { expectedRevision?: number; clientRequestId?: string }): Promise<Receipt> {
    return this.write(caller, id, body.expectedRevision, true, body.clientRequestId, { operation: archived ? "archive" : "restore", archived });
  }

  async restoreRevision(caller: Caller, id: string, revision: number, body: { expectedRevision?: number; clientRequestId?: string }): Promise<Receipt> {
    return this.write(caller, id, body.expectedRevision, true, body.clientRequestId, { operation: "revision_restore", restoredFrom: revision });
  }

  /** One write: lock the note, replay a repeated request, check the revision, then one new revision. */
  private async write(caller: Caller, rawId: string, expected: number | undefined, needsExpected: boolean, crid: string | undefined, w: Write): Promise<Receipt> {
    if (needsExpected && expected === undefined) {
      throw new AppError("validation_failed", `expectedRevision is required for ${w.operation === "revision_restore" ? "a revision restore" : `a ${w.operation}`}`, {
        fields: { expectedRevision: "required: the note's current revision" },
      });
    }
    const id = bareNoteId(rawId);
    // Checked before the lock, so a lookup or a slow validation never holds it; another account's note is 404
    // before anything about the request is judged.
    if (w.metadata && !(await this.repo.get(caller.accountId, id, false))) throw new AppError("not_found", "note not found");
    const pending = w.metadata ? await this.metadataChecks(caller.accountId, w.metadata) : undefined;
    return this.repo.transaction(async (tx, uow) => {
      const note = await tx.lock(caller.accountId, id);
      if (!note) throw new AppError("not_found", "note not found");
      if (crid !== undefined) {
        const first = await tx.revisionByRequest(id, crid);
        if (first) return receiptOf(id, first);
      }
      if (expected !== undefined && expected !== note.current_revision) {
        throw new AppError("revision_conflict", `the note is at revision ${note.current_revision}, not ${expected}`, { currentRevision: note.current_revision });
      }
      if (w.archived === true && note.archived_at !== null) throw new AppError("invalid_state", "the note is already archived", { currentRevision: note.current_revision });
      if (w.archived === false && note.archived_at === null) throw new AppError("invalid_state", "the note is not archived", { currentRevision: note.current_revision });

      const now = nowSeconds();
      const next = note.current_revision + 1;
      const current = fieldsOf(note);
      const { fields, diff } = w.metadata ? await this.applyMetadata(caller.accountId, current, w.metadata, pending) : { fields: current, diff: emptyDiff() };
      let title = w.title ?? note.title;
      let body: BodyChange | undefined = w.body;
      if (w.restoredFrom !== undefined) {
        const old = await tx.revision(id, w.restoredFrom);
        if (!old || w.restoredFrom > note.current_revision) throw new AppError("not_found", `the note has no revision ${w.restoredFrom}`);
        title = old.title;
        body = { replace: await tx.bodyAt(id, old) };
      }

      let bytes = note.bytes;
      let lines = note.line_count;
      let stored: { storage: "full" | "delta"; text: string; fromNote?: boolean } = { storage: "delta", text: "" };
      if (body && "replace" in body) {
        bytes = bytesOf(body.replace);
        lines = splitLines(body.replace).length;
        stored = { storage: "full", text: body.replace };
      } else if (body) {
        // On a new line: after a line break the text starts the (empty) last line; otherwise it starts a new one.
        const joined = note.bytes === 0 || note.ends_with_newline ? body.append : `\n${body.append}`;
        const added = splitLines(body.append).length;
        lines = note.bytes === 0 ? added : note.ends_with_newline ? note.line_count - 1 + added : note.line_count + added;
        bytes = note.bytes + bytesOf(joined);
        body = { append: joined };
        const sinceSnapshot = bytes - note.snapshot_bytes;
        const snapshot = sinceSnapshot > Math.max(note.snapshot_bytes, minSnapshotBytes) || next - note.snapshot_revision >= snapshotEvery;
        stored = snapshot ? { storage: "full", text: "", fromNote: true } : { storage: "delta", text: joined };
      } else if (next - note.snapshot_revision >= snapshotEvery) {
        stored = { storage: "full", text: "", fromNote: true };
      }
      if (bytes > noteBodyBytes) throw tooLarge();
      const full = stored.storage === "full";

      await tx.update(caller.accountId, id, { ...fields, title, archived_at: w.archived === undefined ? note.archived_at : w.archived ? now : null }, {
        body,
        revision: next,
        bytes,
        lines,
        snapshot: full,
        now,
      });
      await tx.addRevision(caller.accountId, {
        noteId: id,
        revision: next,
        operation: w.operation,
        title,
        storage: stored.storage,
        body: stored.text,
        bodyFromNote: stored.fromNote,
        baseRevision: full ? next : note.snapshot_revision,
        bytes,
        lineCount: lines,
        clientRequestId: crid ?? null,
        metadataDiff: diff,
        restoredFrom: w.restoredFrom ?? null,
        now,
      });
      await this.events.revisionMade(uow, caller.accountId, { noteId: id, revision: next, operation: w.operation });
      return { note: { id, title, currentRevision: next }, revision: { revisionNumber: next, operation: w.operation }, metadataDiff: diff };
    });
  }

  /** What a metadata change needs checked outside the lock: the project exists, the repository parses. */
  private async metadataChecks(accountId: string, m: MetadataInput): Promise<{ repositoryKey?: string | null }> {
    if (m.project != null && !(await this.projects.exists(accountId, m.project))) {
      throw new AppError("validation_failed", "no such project", { fields: { project: "not a project of this account" } });
    }
    if (m.properties !== undefined && bytesOf(JSON.stringify(m.properties)) > propertiesBytes) {
      throw new AppError("validation_failed", "properties hold more than 64 KB", { fields: { properties: "at most 64 KB as JSON" } });
    }
    if (m.repository == null) return { repositoryKey: m.repository === null ? null : undefined };
    const key = repositoryKey(m.repository);
    if (key === null) throw new AppError("validation_failed", "not a repository address", { fields: { repository: "expected host/owner/name, an https or ssh address" } });
    return { repositoryKey: key };
  }

  /** The note's fields with the supplied metadata applied, and what changed. Omitted fields stay as they are. */
  private async applyMetadata(accountId: string, f: NoteFields, m: MetadataInput, checked?: { repositoryKey?: string | null }) {
    const c = checked ?? (await this.metadataChecks(accountId, m));
    const out: NoteFields = { ...f };
    const diff = emptyDiff();
    if (m.tags !== undefined) {
      const wanted = [...new Set(m.tags.map((t) => t.trim()).filter(Boolean).map(tagSlug))];
      diff.tagsAdded = wanted.filter((s) => !f.tags.includes(s));
      diff.tagsRemoved = f.tags.filter((s) => !wanted.includes(s));
      out.tags = wanted;
    }
    const change = (key: "project" | "kind" | "state", before: string | null, after: string | null | undefined) => {
      if (after === undefined || after === before) return before;
      diff[key] = { before, after };
      return after;
    };
    out.project_id = change("project", f.project_id, m.project);
    out.kind = change("kind", f.kind, m.kind);
    out.state = change("state", f.state, m.state);
    if (m.repository !== undefined) {
      out.repository = m.repository;
      out.repository_key = c.repositoryKey ?? null;
    }
    if (m.paths !== undefined) out.paths = [...new Set(m.paths.map(cleanPath).filter(Boolean))];
    if (m.properties !== undefined) out.properties = m.properties;
    return { fields: out, diff };
  }

  // ---- reads -------------------------------------------------------------------------------------------------

  /** A note of the account, or 404. */
  async require(accountId: string, rawId: string, withBody = false): Promise<NoteRow> {
    const note = await this.repo.get(accountId, bareNoteId(rawId), withBody);
    if (!note) throw new AppError("not_found", "note not found");
    return note;
  }

  async get(caller: Caller, rawId: string, accept?: string) {
    const note = await this.require(caller.accountId, rawId, true);
    const dto = { ...manifestOf(note), bodyMarkdown: note.body ?? "", properties: note.properties, itemLinks: await this.links.forNote(caller.accountId, note.id) };
    if (accept === "text/markdown") {
      const reply: RawReply = {
        body: await markdownDocument(dto, dto.bodyMarkdown),
        encoding: "utf8",
        contentType: "text/markdown; charset=utf-8",
        headers: { "x-note-revision": String(note.current_revision) },
      };
      return reply;
    }
    return { note: dto };
  }

  async list(caller: Caller, q: { include?: "content"; limit?: number; offset?: number } & ListQuery) {
    const limit = q.limit ?? 200;
    const offset = q.offset ?? 0;
    const withBody = q.include === "content";
    const { rows, count } = await this.repo.list(caller.accountId, filtersOf(q), { limit, offset, body: withBody });
    const notes = [];
    let size = 0;
    for (const row of rows) {
      // A page with bodies ends once it holds the page budget (always at least one note).
      if (withBody && notes.length > 0 && size + row.bytes > notePageBytes) break;
      size += row.bytes;
      notes.push(withBody ? { ...manifestOf(row), bodyMarkdown: row.body ?? "" } : manifestOf(row));
    }
    const end = offset + notes.length;
    return { notes, limit, offset, count, nextOffset: end < count ? end : null };
  }

  async read(caller: Caller, rawId: string, q: { view?: "overview" | "search" | "lines"; q?: string; contextLines?: number; limit?: number; lines?: string; revision?: number }) {
    const view = q.view ?? "overview";
    if (view === "search" && !q.q) throw new AppError("validation_failed", "view=search needs q", { fields: { q: "required for view=search" } });
    if (view === "lines" && !q.lines) throw new AppError("validation_failed", "view=lines needs lines=start:end", { fields: { lines: "required for view=lines" } });
    const pinned = q.revision !== undefined;
    const note = await this.require(caller.accountId, rawId, !pinned);
    let markdown = note.body ?? "";
    let revision = note.current_revision;
    let title = note.title;
    if (pinned) {
      const old = q.revision! <= note.current_revision ? await this.repo.revision(note.id, q.revision!) : undefined;
      if (!old) throw new AppError("not_found", `the note has no revision ${q.revision}`, { currentRevision: note.current_revision });
      markdown = await this.repo.bodyAt(note.id, old);
      revision = old.revision;
      title = old.title;
    }
    const meta = { id: note.id, title, revision, currentRevision: note.current_revision, archived: note.archived_at !== null };
    if (view === "search") return { view, note: meta, ...searchWindows(markdown, q.q!, { contextLines: q.contextLines, limit: q.limit }) };
    if (view === "lines") return { view, note: meta, ...sliceLines(markdown, q.lines!) };
    return { view, note: meta, ...overview(markdown) };
  }

  async history(caller: Caller, rawId: string, q: { include?: "content"; limit?: number; offset?: number }) {
    const note = await this.require(caller.accountId, rawId);
    const limit = q.limit ?? 50;
    const offset = q.offset ?? 0;
    const rows = await this.repo.history(note.id, limit, offset);
    const count = note.current_revision;
    let revisions: (ReturnType<typeof revisionSummary> & { bodyMarkdown?: string })[] = rows.map(revisionSummary);
    if (q.include === "content" && rows.length > 0) {
      // The page ends early past the budget (sizes are known before any body is rebuilt).
      let size = 0;
      let fit = 0;
      while (fit < rows.length && (fit === 0 || size + rows[fit]!.bytes <= notePageBytes)) size += rows[fit++]!.bytes;
      const bodies = await this.bodiesOf(note.id, rows.slice(0, fit));
      revisions = revisions.slice(0, fit).map((r) => ({ ...r, bodyMarkdown: bodies.get(r.revisionNumber) ?? "" }));
    }
    const end = offset + revisions.length;
    return { revisions, limit, offset, count, nextOffset: end < count ? end : null };
  }

  /** Bodies of some revisions (newest first), rebuilt in one pass over the stored parts from the oldest's snapshot. */
  private async bodiesOf(noteId: string, rows: RevisionRow[]): Promise<Map<number, string>> {
    const wanted = new Set(rows.map((r) => r.revision));
    const oldest = rows.at(-1)!;
    const out = new Map<number, string>();
    let body = "";
    for (const part of await this.repo.parts(noteId, oldest.base_revision, rows[0]!.revision)) {
      body = part.storage === "full" ? part.body : body + part.body;
      if (wanted.has(part.revision)) out.set(part.revision, body);
    }
    return out;
  }
}

// ---- shapes --------------------------------------------------------------------------------------------------

export interface ListQuery {
  project?: string;
  repository?: string;
  kind?: string;
  state?: string;
  tags?: string;
  archived?: "false" | "true" | "any";
}

export function filtersOf(q: ListQuery): NoteFilters {
  const f: NoteFilters = { archived: q.archived ?? "false", projectId: q.project, kind: q.kind, state: q.state };
  if (q.repository !== undefined) {
    const key = repositoryKey(q.repository);
    if (key === null) throw new AppError("validation_failed", "not a repository address", { fields: { repository: "expected host/owner/name" } });
    f.repositoryKey = key;
  }
  if (q.tags !== undefined) f.tagSlugs = q.tags.split(",").map((t) => t.trim()).filter(Boolean).map(tagSlug);
  return f;
}

const fieldsOf = (n: NoteRow): NoteFields => ({
  title: n.title,
  kind: n.kind,
  state: n.state,
  project_id: n.project_id,
  repository: n.repository,
  repository_key: n.repository_key,
  paths: n.paths,
  tags: n.tags,
  properties: n.properties,
});

const cleanPath = (p: string) => p.trim().replace(/^\.\//, "").replace(/^\/+/, "");

function receiptOf(noteId: string, r: RevisionRow): Receipt {
  return {
    note: { id: noteId, title: r.title, currentRevision: r.revision },
    revision: { revisionNumber: r.revision, operation: r.operation as Operation },
    metadataDiff: r.metadata_diff as unknown as MetadataDiff,
  };
}

const tooLarge = () =>
  new AppError("payload_too_large", `a note holds at most ${noteBodyBytes / 1024 / 1024} MiB of Markdown`, { limit: noteBodyBytes });
