// Notes (the notes service): Markdown documents with a numbered revision history, progressive reads, item links,
// the context of a note and the notes export. Decisions behind these shapes: docs/decisions.md, "Notes".
import { t } from "elysia";
import { op } from "./operation.ts";
import { SearchMode, ServedMode } from "./search.ts";
import { Count, Id, Int4, Limit, Offset, Timestamp } from "./schemas.ts";

/** The most a note's body holds, in UTF-8 bytes: a write that would make it larger answers 413 payload_too_large. */
export const noteBodyBytes = 4 * 1024 * 1024;
/** Markdown a page of notes with content carries at most; the page ends early past it (nextOffset says where). */
export const notePageBytes = 8 * 1024 * 1024;

/** Bare ids; `note_<id>` is accepted too (the older form). */
export const NoteIdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 69, pattern: "^(note_)?[A-Za-z0-9_-]+$" }) });

const Slug = t.String({ minLength: 1, maxLength: 80, pattern: "^[a-z0-9][a-z0-9_-]*$" });
const Title = t.String({ minLength: 1, maxLength: 1000 });
const Body = t.String({ maxLength: noteBodyBytes, description: `Markdown; a note holds at most ${noteBodyBytes / 1024 / 1024} MiB (UTF-8)` });
const Kind = t.Nullable(t.String({ minLength: 1, maxLength: 80, pattern: "^[a-z0-9][a-z0-9_-]*$", description: "a free short slug (decision, plan, log, ...)" }));
const State = t.Nullable(t.String({ minLength: 1, maxLength: 80, pattern: "^[a-z0-9][a-z0-9_-]*$", description: "a free short slug (draft, active, done, ...)" }));
const TagList = t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, description: "tag names or slugs; stored as slugs; [] removes every tag" });
const ProjectRef = t.Nullable(t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$", description: "a project id of the same account" }));
const Repository = t.Nullable(t.String({ minLength: 1, maxLength: 500, description: "a repository address (https, ssh or host/owner/name); normalised for matching" }));
const Paths = t.Array(t.String({ minLength: 1, maxLength: 500 }), {
  maxItems: 50,
  description: "repository paths the note is about (src/api/, docs/intro.md): the context brief ranks by them",
});
// An object of any keys (t.Record lets a non-object through Elysia's body check).
const Properties = t.Object(
  {},
  { additionalProperties: true, description: "custom metadata (at most 64 KB as JSON); `description` (a string) is shown in the context brief" },
);
const ClientRequestId = t.String({
  minLength: 1,
  maxLength: 200,
  description: "caller-chosen id; repeating it on the same note returns the first receipt and writes nothing",
});
const ExpectedRevision = t.Integer({ minimum: 1, maximum: 2_147_483_647, description: "the note's current revision; a stale one answers 409 revision_conflict" });

export const noteOperations = ["create", "replace", "metadata", "append", "archive", "restore", "revision_restore"] as const;
const Operation = t.UnionEnum(noteOperations);

const MetadataDiff = t.Object(
  {
    tagsAdded: t.Array(t.String()),
    tagsRemoved: t.Array(t.String()),
    project: t.Optional(t.Object({ before: t.Nullable(t.String()), after: t.Nullable(t.String()) })),
    kind: t.Optional(t.Object({ before: t.Nullable(t.String()), after: t.Nullable(t.String()) })),
    state: t.Optional(t.Object({ before: t.Nullable(t.String()), after: t.Nullable(t.String()) })),
  },
  { description: "added and removed tag slugs; before/after of project (an id), kind and state when they changed" },
);

export const NoteReceipt = t.Object({
  note: t.Object({ id: t.String(), title: t.String(), currentRevision: Int4() }),
  revision: t.Object({ revisionNumber: Int4(), operation: Operation }),
  metadataDiff: MetadataDiff,
});

export const NoteItemLink = t.Object({
  id: t.String({ description: "the link id (DELETE /api/notes/:id/item-links/:linkId)" }),
  itemId: t.String(),
  highlightId: t.Nullable(t.String()),
  relation: t.UnionEnum(["source", "evidence", "example", "inspiration", "annotation"]),
  annotation: t.String(),
  createdAt: Timestamp,
});

const manifestFields = {
  id: t.String(),
  title: t.String(),
  kind: t.Nullable(t.String()),
  state: t.Nullable(t.String()),
  tags: t.Array(t.String(), { description: "tag slugs" }),
  project: t.Nullable(t.String({ description: "project id" })),
  repository: t.Nullable(t.String()),
  paths: t.Array(t.String()),
  currentRevision: Int4(),
  archived: t.Boolean(),
  archivedAt: t.Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  bytes: Int4({ description: "UTF-8 size of the body" }),
  lineCount: Int4(),
};

export const NoteManifest = t.Object({ ...manifestFields, bodyMarkdown: t.Optional(t.String({ description: "with include=content" })) });

export const Note = t.Object({
  ...manifestFields,
  bodyMarkdown: t.String(),
  properties: t.Record(t.String(), t.Unknown()),
  itemLinks: t.Array(NoteItemLink),
});

export const NoteRevision = t.Object({
  revisionNumber: Int4(),
  operation: Operation,
  title: t.String({ description: "the title at this revision" }),
  createdAt: Timestamp,
  bytes: Int4({ description: "body size at this revision" }),
  lineCount: Int4(),
  clientRequestId: t.Nullable(t.String()),
  metadataDiff: MetadataDiff,
  restoredFrom: t.Nullable(Int4({ description: "revision_restore: the revision whose content came back" })),
  bodyMarkdown: t.Optional(t.String({ description: "with include=content" })),
});

const NoteFilters = {
  project: t.Optional(t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$", description: "project id" })),
  repository: t.Optional(t.String({ minLength: 1, maxLength: 500, description: "repository address (normalised)" })),
  kind: t.Optional(t.String({ minLength: 1, maxLength: 80 })),
  state: t.Optional(t.String({ minLength: 1, maxLength: 80 })),
  tags: t.Optional(t.String({ maxLength: 4096, description: "comma-separated tag names or slugs: notes carrying any of them" })),
  archived: t.Optional(t.UnionEnum(["false", "true", "any"], { description: "false (default): current notes; true: archived ones; any: both" })),
};

const writeCommon = { clientRequestId: t.Optional(ClientRequestId) };
const metadataFields = {
  tags: t.Optional(TagList),
  project: t.Optional(ProjectRef),
  repository: t.Optional(Repository),
  paths: t.Optional(Paths),
  kind: t.Optional(Kind),
  state: t.Optional(State),
  properties: t.Optional(Properties),
};

const Relation = t.UnionEnum(["source", "evidence", "example", "inspiration", "annotation"]);

export const ItemSource = t.Object({
  linkId: t.String(),
  itemId: t.String(),
  highlightId: t.Nullable(t.String()),
  relation: Relation,
  annotation: t.String(),
  available: t.Boolean({ description: "false when the item is gone or archived, or could not be asked about (reason says which)" }),
  reason: t.Optional(
    t.UnionEnum(["missing", "archived", "highlight_missing", "unavailable"], {
      description: "missing: no such item for this key; archived; highlight_missing: the linked highlight is gone; unavailable: the items service did not answer",
    }),
  ),
  item: t.Optional(
    t.Object({
      id: t.String(),
      title: t.String(),
      url: t.String(),
      status: t.String(),
      tags: t.Array(t.String()),
      createdAt: Timestamp,
      excerpt: t.Optional(t.String({ description: "with content=true: the start of the item's Markdown, at most contentBytes" })),
      contentTruncated: t.Optional(t.Boolean()),
    }),
  ),
  highlights: t.Array(t.Object({ id: t.String(), text: t.String(), note: t.String() }), {
    description: "the linked highlight, or the item's first highlights (at most 5), each text cut at 1000 bytes",
  }),
});

export const noteOperationsTable = {
  listNotes: op({
    method: "GET",
    path: "/api/notes",
    service: "notes",
    permission: "notes.read",
    tag: "Notes",
    summary: "Compact note manifests, most recently updated first; include=content adds bodies",
    query: t.Object({ ...NoteFilters, include: t.Optional(t.Literal("content")), limit: t.Optional(Limit(1000, 200)), offset: t.Optional(Offset) }),
    response: t.Object({
      notes: t.Array(NoteManifest),
      limit: Int4(),
      offset: Int4(),
      count: Count(),
      nextOffset: t.Nullable(Int4({ description: `null on the last page; a page with content ends early past ${notePageBytes / 1024 / 1024} MiB` })),
    }),
  }),
  createNote: op({
    method: "POST",
    path: "/api/notes",
    service: "notes",
    permission: "notes.write",
    tag: "Notes",
    summary: "Create a note (revision 1); answers a receipt, never the Markdown",
    body: t.Object({ title: Title, bodyMarkdown: t.Optional(Body), ...metadataFields, ...writeCommon }),
    response: NoteReceipt,
  }),
  searchNotes: op({
    method: "GET",
    path: "/api/notes/search",
    service: "notes",
    permission: "notes.read",
    tag: "Notes",
    summary: "Notes matching q, best first: compact coordinates (id, title, revision, matching line ranges), no bodies",
    query: t.Object({
      q: t.String({ minLength: 1, maxLength: 500, description: 'words are ANDed, "quoted phrases", OR, -exclusion; the last word also matches as a prefix' }),
      mode: SearchMode,
      ...NoteFilters,
      limit: t.Optional(Limit(100, 20)),
      offset: t.Optional(Offset),
    }),
    response: t.Object({
      results: t.Array(
        t.Object({
          id: t.String(),
          title: t.String(),
          revision: Int4({ description: "the note's current revision" }),
          score: t.Number({ description: "higher is better; comparable within one response only" }),
          matchedField: t.Union(["title", "tags", "description", "repository", "paths", "body"].map((f) => t.Literal(f))),
          lineRanges: t.Array(t.Object({ startLine: Int4(), endLine: Int4() }), {
            description: "lines of the body holding a query word, at most 10 ranges, 1-based inclusive; read them with view=lines",
          }),
          matchCount: Count({ description: "lines of the body holding a query word" }),
        }),
      ),
      count: Count(),
      limit: Int4(),
      offset: Int4(),
      mode: ServedMode,
    }),
  }),
  exportNotes: op({
    method: "GET",
    path: "/api/notes/export",
    service: "notes",
    permission: "notes.read",
    tag: "Notes",
    summary: "A ZIP of every note (current and archived), one Markdown file with YAML frontmatter each",
    response: t.String(),
    produces: "application/zip",
    // The ZIP is complete before the reply: a large library takes longer than an ordinary request.
    timeoutMs: 300_000,
  }),
  getNote: op({
    method: "GET",
    path: "/api/notes/:id",
    service: "notes",
    permission: "notes.read",
    tag: "Notes",
    summary: "One note with its body; with Accept: text/markdown a Markdown document with YAML frontmatter",
    params: NoteIdParams,
    response: t.Object({ note: Note }),
    alternates: ["text/markdown"],
  }),
  readNote: op({
    method: "GET",
    path: "/api/notes/:id/read",
    service: "notes",
    permission: "notes.read",
    tag: "Notes",
    summary: "Progressive read: overview (outline), search windows or one exact line range; revision pins an older one",
    params: NoteIdParams,
    query: t.Object({
      view: t.Optional(t.UnionEnum(["overview", "search", "lines"])),
      q: t.Optional(t.String({ minLength: 1, maxLength: 500 })),
      contextLines: t.Optional(t.Integer({ minimum: 0, maximum: 50 })),
      limit: t.Optional(t.Integer({ minimum: 1, maximum: 200 })),
      lines: t.Optional(t.String({ maxLength: 40, pattern: "^\\d{1,9}:\\d{1,9}$", description: "start:end, 1-based, inclusive; at most 200 lines and 32 KB" })),
      revision: t.Optional(t.Integer({ minimum: 1, maximum: 2_147_483_647 })),
    }),
    response: t.Record(t.String(), t.Unknown()),
  }),
  updateNote: op({
    method: "PATCH",
    path: "/api/notes/:id",
    service: "notes",
    permission: "notes.write",
    tag: "Notes",
    summary: "Change supplied fields only (expectedRevision required); title or body makes a replace, the rest a metadata change",
    params: NoteIdParams,
    body: t.Object({ expectedRevision: t.Optional(ExpectedRevision), title: t.Optional(Title), bodyMarkdown: t.Optional(Body), ...metadataFields, ...writeCommon }),
    response: NoteReceipt,
  }),
  appendNote: op({
    method: "POST",
    path: "/api/notes/:id/append",
    service: "notes",
    permission: "notes.write",
    tag: "Notes",
    summary: "Append Markdown on a new line; without expectedRevision it applies to the latest revision",
    params: NoteIdParams,
    body: t.Object({ bodyMarkdown: t.String({ minLength: 1, maxLength: noteBodyBytes }), expectedRevision: t.Optional(ExpectedRevision), ...writeCommon }),
    response: NoteReceipt,
  }),
  archiveNote: op({
    method: "POST",
    path: "/api/notes/:id/archive",
    service: "notes",
    permission: "notes.write",
    tag: "Notes",
    summary: "Archive a note (a new revision)",
    params: NoteIdParams,
    body: t.Object({ expectedRevision: t.Optional(ExpectedRevision), ...writeCommon }),
    response: NoteReceipt,
  }),
  restoreNote: op({
    method: "POST",
    path: "/api/notes/:id/restore",
    service: "notes",
    permission: "notes.write",
    tag: "Notes",
    summary: "Bring an archived note back (a new revision)",
    params: NoteIdParams,
    body: t.Object({ expectedRevision: t.Optional(ExpectedRevision), ...writeCommon }),
    response: NoteReceipt,
  }),
  noteHistory: op({
    method: "GET",
    path: "/api/notes/:id/history",
    service: "notes",
    permission: "notes.read",
    tag: "Notes",
    summary: "Revision summaries, newest first; include=content adds each revision's body",
    params: NoteIdParams,
    query: t.Object({ include: t.Optional(t.Literal("content")), limit: t.Optional(Limit(200, 50)), offset: t.Optional(Offset) }),
    response: t.Object({
      revisions: t.Array(NoteRevision),
      limit: Int4(),
      offset: Int4(),
      count: Count(),
      nextOffset: t.Nullable(Int4({ description: `null on the last page; a page with content ends early past ${notePageBytes / 1024 / 1024} MiB` })),
    }),
  }),
  restoreNoteRevision: op({
    method: "POST",
    path: "/api/notes/:id/revisions/:revision/restore",
    service: "notes",
    permission: "notes.write",
    tag: "Notes",
    summary: "The title and body of an older revision become the next revision; history is kept",
    params: t.Object({ id: NoteIdParams.properties.id, revision: t.Integer({ minimum: 1, maximum: 2_147_483_647 }) }),
    body: t.Object({ expectedRevision: t.Optional(ExpectedRevision), ...writeCommon }),
    response: NoteReceipt,
  }),
  createNoteItemLink: op({
    method: "POST",
    path: "/api/notes/:id/item-links",
    service: "notes",
    permission: "notes.write",
    tag: "Notes",
    summary: "Attach an item (or one of its highlights); the same attachment again returns the existing link",
    params: NoteIdParams,
    body: t.Object({
      itemId: Id,
      highlightId: t.Optional(Id),
      relation: t.Optional(Relation),
      annotation: t.Optional(t.String({ maxLength: 10_000 })),
    }),
    response: t.Object({ link: NoteItemLink, existing: t.Boolean() }),
  }),
  deleteNoteItemLink: op({
    method: "DELETE",
    path: "/api/notes/:id/item-links/:linkId",
    service: "notes",
    permission: "notes.write",
    tag: "Notes",
    summary: "Remove an attachment",
    params: t.Object({ id: NoteIdParams.properties.id, linkId: Id }),
    response: t.Object({ ok: t.Boolean(), id: t.String() }),
  }),
  noteContext: op({
    method: "GET",
    path: "/api/notes/:id/context",
    service: "notes",
    permission: "notes.read",
    tag: "Notes",
    summary: "A note's manifest and outline with bounded summaries of its linked items and highlights (and recent history)",
    params: NoteIdParams,
    query: t.Object({
      history: t.Optional(t.Boolean({ description: "add recent revision summaries" })),
      content: t.Optional(t.Boolean({ description: "add the start of each linked item's Markdown" })),
      sourceLimit: t.Optional(t.Integer({ minimum: 1, maximum: 50, description: "linked items, default 10" })),
      historyLimit: t.Optional(t.Integer({ minimum: 1, maximum: 100, description: "revisions, default 10" })),
      contentBytes: t.Optional(t.Integer({ minimum: 1, maximum: 32_768, description: "bytes of Markdown per linked item, default 2000" })),
    }),
    response: t.Object({
      note: NoteManifest,
      outline: t.Array(t.Object({ level: Int4(), text: t.String(), line: Int4() })),
      sources: t.Array(ItemSource),
      sourceCount: Count({ description: "links on the note; sources holds at most sourceLimit" }),
      history: t.Optional(t.Array(NoteRevision)),
    }),
  }),
} as const;
