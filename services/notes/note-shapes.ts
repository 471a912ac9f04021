// How a note and its revisions are shown in replies (manifests, revision summaries) and how note ids are read:
// shared by every part of the notes service.
import type { NoteRow, RevisionRow } from "./notes.repository.ts";

export type Operation = "create" | "replace" | "metadata" | "append" | "archive" | "restore" | "revision_restore";

export interface MetadataDiff {
  tagsAdded: string[];
  tagsRemoved: string[];
  project?: { before: string | null; after: string | null };
  kind?: { before: string | null; after: string | null };
  state?: { before: string | null; after: string | null };
}

/** `note_<id>` is the older spelling of a note id. */
export const bareNoteId = (id: string) => (id.startsWith("note_") ? id.slice(5) : id);

export function manifestOf(n: NoteRow) {
  return {
    id: n.id,
    title: n.title,
    kind: n.kind,
    state: n.state,
    tags: n.tags,
    project: n.project_id,
    repository: n.repository,
    paths: n.paths,
    currentRevision: n.current_revision,
    archived: n.archived_at !== null,
    archivedAt: n.archived_at,
    createdAt: n.created_at,
    updatedAt: n.updated_at,
    bytes: n.bytes,
    lineCount: n.line_count,
  };
}

export function revisionSummary(r: RevisionRow) {
  return {
    revisionNumber: r.revision,
    operation: r.operation as Operation,
    title: r.title,
    createdAt: r.created_at,
    bytes: r.bytes,
    lineCount: r.line_count,
    clientRequestId: r.client_request_id,
    metadataDiff: r.metadata_diff as unknown as MetadataDiff,
    restoredFrom: r.restored_from,
  };
}
