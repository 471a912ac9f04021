// Item export jobs (the spec's three routes, plus reading one job) and import jobs (beyond the spec): the exports
// service runs both in the background. Decisions behind these shapes: docs/decisions.md, "Exports and imports".
import { t } from "elysia";
import { op } from "./operation.ts";
import { importFormats } from "./portability.ts";
import { Count, Id, Int4, ItemStatus, Limit, Offset, Timestamp } from "./schemas.ts";

const JobParams = t.Object({ jobId: Id });
const JobStatus = t.UnionEnum(["queued", "running", "completed", "failed"]);

export const ExportJob = t.Object({
  id: t.String(),
  status: JobStatus,
  format: t.String(),
  itemCount: Count({ description: "items written so far (all of them once completed)" }),
  sizeBytes: Count({ description: "bytes of the file once completed" }),
  createdAt: Timestamp,
  completedAt: t.Nullable(Timestamp),
  error: t.Nullable(t.String()),
  expiresAt: t.Nullable(t.Integer({ minimum: 0, description: "Unix seconds: the file is deleted then (completed jobs)" })),
  filters: t.Object({
    tags: t.Array(t.String()),
    collection: t.Nullable(t.String()),
    status: t.Nullable(t.Array(t.String())),
    includeContent: t.Boolean(),
    includeNotes: t.Boolean(),
  }),
});

const ImportFailure = t.Object({
  index: Count({ description: "0-based position of the entry in the file" }),
  url: t.Nullable(t.String()),
  reason: t.String(),
});

export const ImportJob = t.Object({
  id: t.String(),
  status: JobStatus,
  format: t.String(),
  fileName: t.Nullable(t.String()),
  sizeBytes: Count({ description: "bytes of the uploaded file" }),
  entries: Count({ description: "entries read from the file (0 until it is parsed)" }),
  processed: Count({ description: "entries handled so far" }),
  created: Count(),
  alreadyPresent: Count({ description: "entries whose URL was already saved (tags, collections and highlights merged in)" }),
  failed: Count({ description: "entries that could not be read or saved; reasons in `failures`" }),
  notImported: Count({ description: "entries left when the plan's limit stopped the import" }),
  stoppedBy: t.Nullable(t.String({ description: "`quota_reached` when the plan's limit stopped the import" })),
  fetch: t.Object(
    { pending: Count(), fetched: Count(), failed: Count() },
    { description: "pages fetched in the background for entries the file had no content for" },
  ),
  createdAt: Timestamp,
  startedAt: t.Nullable(Timestamp),
  completedAt: t.Nullable(Timestamp),
  error: t.Nullable(t.String()),
});

// A union of literals: Elysia fills a missing optional UnionEnum with its first value.
const ImportFormat = t.Union(
  importFormats.map((f) => t.Literal(f)),
  { description: "detected from the file when left out" },
);

export const exportOperations = {
  createExport: op({
    method: "POST",
    path: "/api/exports",
    service: "exports",
    permission: "items.read",
    tag: "Exports",
    summary: "Start an export job of the library (Markdown ZIP, JSON or CSV), limited by tags, collection or status",
    body: t.Object({
      format: t.UnionEnum(["markdown_zip", "json", "csv"]),
      tags: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 20, description: "items carrying every one of these tags (names or slugs)" })),
      collection: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "a collection id, name or slug" })),
      status: t.Optional(
        t.Array(ItemStatus, { minItems: 1, maxItems: 3, description: "statuses to include; left out: every item, archived included" }),
      ),
      includeContent: t.Optional(t.Boolean({ default: true, description: "the extracted Markdown of each item" })),
      includeNotes: t.Optional(t.Boolean({ default: true, description: "false leaves out the personal item notes" })),
    }),
    response: t.Object({ export: ExportJob }),
    // Exporting reads the library: read-only keys may start one.
    reads: true,
  }),
  listExports: op({
    method: "GET",
    path: "/api/exports",
    service: "exports",
    permission: "items.read",
    tag: "Exports",
    summary: "Recent export jobs, newest first",
    query: t.Object({ limit: t.Optional(Limit(100, 20)), offset: t.Optional(Offset) }),
    response: t.Object({ exports: t.Array(ExportJob), limit: Int4(), offset: Int4(), count: Count() }),
  }),
  getExport: op({
    method: "GET",
    path: "/api/exports/:jobId",
    service: "exports",
    permission: "items.read",
    tag: "Exports",
    summary: "One export job",
    params: JobParams,
    response: t.Object({ export: ExportJob }),
  }),
  downloadExport: op({
    method: "GET",
    path: "/api/exports/:jobId/download",
    service: "exports",
    permission: "items.read",
    tag: "Exports",
    summary: "The export's file (application/zip, application/json or text/csv); 409 until the job has completed",
    params: JobParams,
    response: t.String(),
    produces: "application/octet-stream",
  }),
  createImport: op({
    method: "POST",
    path: "/api/imports",
    service: "exports",
    permission: "items.write",
    tag: "Imports",
    summary: "Start an import job: the file as the request body (format in the query or detected), or as base64 JSON",
    query: t.Object({
      format: t.Optional(ImportFormat),
      fileName: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
    }),
    body: t.Object({
      file: t.String({ minLength: 1, description: "the file, base64-encoded (a raw upload fills it)" }),
      format: t.Optional(ImportFormat),
      fileName: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
    }),
    fileBody: { field: "file" },
    // It writes tags and collections across the library.
    wholeLibrary: true,
    response: t.Object({ import: ImportJob }),
  }),
  listImports: op({
    method: "GET",
    path: "/api/imports",
    service: "exports",
    permission: "items.read",
    tag: "Imports",
    summary: "Recent import jobs, newest first",
    query: t.Object({ limit: t.Optional(Limit(100, 20)), offset: t.Optional(Offset) }),
    response: t.Object({ imports: t.Array(ImportJob), limit: Int4(), offset: Int4(), count: Count() }),
  }),
  getImport: op({
    method: "GET",
    path: "/api/imports/:jobId",
    service: "exports",
    permission: "items.read",
    tag: "Imports",
    summary: "One import job with its progress, summary and the reasons of failed entries (paged)",
    params: JobParams,
    query: t.Object({ limit: t.Optional(Limit(1000, 100)), offset: t.Optional(Offset) }),
    response: t.Object({ import: ImportJob, failures: t.Array(ImportFailure), failuresCount: Count() }),
  }),
};
