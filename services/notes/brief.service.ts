// The context brief: an index of a repository's recent notes for a coding agent, ranked by path affinity, then
// recency. It carries what a note is about (title, description, kind, state, paths, tags, revision, address), never
// a body or an item's content.
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { BriefRepository, BriefRow } from "./brief.repository.ts";
import type { ProjectsService } from "./projects.service.ts";
import { repositoryKey } from "./repository-address.ts";

/** A description (the note's properties.description) is cut here, so twenty of them stay a short answer. */
const descriptionChars = 1000;

export class BriefService {
  constructor(
    private readonly repo: BriefRepository,
    private readonly projects: ProjectsService,
  ) {}

  async brief(caller: Caller, q: { project: string; path?: string; limit?: number }) {
    const key = repositoryKey(q.project);
    if (key === null) {
      throw new AppError("validation_failed", "not a repository address", {
        fields: { project: "a repository address: https://host/owner/name, git@host:owner/name.git or host/owner/name" },
      });
    }
    const limit = q.limit ?? 10;
    const path = q.path === undefined ? null : cleanPath(q.path);
    // The owner's notes and the notes that name the repository themselves; an unknown repository has neither.
    const owner = await this.projects.ownerOf(caller.accountId, key);
    const { rows, count } = await this.repo.notes(caller.accountId, {
      repositoryKey: key,
      projectId: owner?.id,
      path: path === null ? null : path.replace(/\/+$/, ""),
      limit,
      descriptionChars,
    });
    return {
      repository: key,
      project: owner ? { id: owner.id, name: owner.name, description: owner.description, state: owner.state } : null,
      path,
      notes: rows.map(briefNoteOf),
      count,
      limit,
    };
  }
}

/** The same rule as a note's own paths: relative to the repository root, without "./" or leading slashes. */
function cleanPath(p: string): string | null {
  const cleaned = p.trim().replace(/^\.\//, "").replace(/^\/+/, "");
  return cleaned.replace(/\/+$/, "") === "" ? null : cleaned;
}

function briefNoteOf(r: BriefRow) {
  const description = r.description !== null && r.description.length > descriptionChars ? `${r.description.slice(0, descriptionChars - 1)}…` : r.description;
  return {
    id: r.id,
    title: r.title,
    description,
    kind: r.kind,
    state: r.state,
    paths: r.paths,
    tags: r.tags,
    revision: r.current_revision,
    updatedAt: r.updated_at,
    url: `/api/notes/${r.id}`,
    pathAffinity: Math.round(r.path_affinity * 1000) / 1000,
  };
}
