// Job rows as the API shows them.
import type { Static } from "elysia";
import type { ExportJob, ImportJob } from "@trove/contracts";
import type { JobRow } from "./jobs.repository.ts";

export type ExportJobDto = Static<typeof ExportJob>;
export type ImportJobDto = Static<typeof ImportJob>;

export interface ExportParams {
  tags: string[];
  collection: string | null;
  status: string[] | null;
  includeContent: boolean;
  includeNotes: boolean;
}

export function exportView(r: JobRow): ExportJobDto {
  const p = r.params as unknown as ExportParams;
  return {
    id: r.id,
    status: r.status,
    format: r.format,
    itemCount: Number(r.item_count),
    sizeBytes: Number(r.size_bytes),
    createdAt: Number(r.created_at),
    completedAt: r.completed_at === null ? null : Number(r.completed_at),
    error: r.error,
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
    filters: { tags: p.tags, collection: p.collection, status: p.status, includeContent: p.includeContent, includeNotes: p.includeNotes },
  };
}

export function importView(r: JobRow, fetch = { pending: 0, fetched: 0, failed: 0 }): ImportJobDto {
  return {
    id: r.id,
    status: r.status,
    format: r.format,
    fileName: r.file_name,
    sizeBytes: Number(r.size_bytes),
    entries: Number(r.entries),
    processed: Number(r.processed),
    created: Number(r.created),
    alreadyPresent: Number(r.present),
    failed: Number(r.failed),
    notImported: Number(r.not_imported),
    stoppedBy: r.stopped_by,
    fetch,
    createdAt: Number(r.created_at),
    startedAt: r.started_at === null ? null : Number(r.started_at),
    completedAt: r.completed_at === null ? null : Number(r.completed_at),
    error: r.error,
  };
}
