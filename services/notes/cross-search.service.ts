// GET /api/search: items and notes in one ranked list. Items are searched by the items service (asked over the bus
// as the caller, so its scope holds), notes here; the two rankings are fused by reciprocal rank, and notes of the
// hinted project or path rank higher. Content, when asked, is shared fairly within one budget.
import type { Bus } from "@trove/bus";
import { crossSearchContentBytes, holds, subjectOf, type Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { callerHeaders } from "@trove/host";
import { cutBytes } from "@trove/reader";
import { rrfK, snippet } from "@trove/search";
import type { NoteFilters } from "./notes.repository.ts";
import type { ProjectsService } from "./projects.service.ts";
import { repositoryKey } from "./repository-address.ts";
import { indexedBodyChars, type NoteFound, type SearchModeName } from "./search-shapes.ts";
import { searchText, type NoteSearch } from "./search.service.ts";
import { pathAffinity } from "./path-affinity.ts";

/** How much a note of the hinted project, and a note about the hinted path (by its affinity 0-1), is lifted. */
const projectBoost = 0.5;
const pathBoost = 0.5;
const snippetBytes = 600;
const itemsTimeoutMs = 10_000;

export interface CrossSearchQuery {
  q: string;
  types?: string;
  mode?: "lexical" | "semantic" | "hybrid";
  project?: string;
  path?: string;
  exactProject?: boolean;
  exactPath?: boolean;
  kind?: string;
  state?: string;
  tags?: string;
  include?: "content";
  limit?: number;
}

interface Result {
  type: "item" | "note";
  id: string;
  title: string;
  snippet: string;
  matchedField: string;
  score: number;
  revision?: number;
  lineRange?: { startLine: number; endLine: number };
  content?: string;
  contentTruncated?: boolean;
  /** The whole content when asked (cut to the fair share later), and whether it was already cut. */
  body?: { text: string; cut: boolean };
}

interface ProjectScope {
  id: string | undefined;
  keys: string[];
}

interface SearchedItem {
  id: string;
  title: string;
  contentMarkdown?: string;
  search: { score: number; matchedField: string; snippet: string };
}

export class CrossSearch {
  constructor(
    private readonly notes: NoteSearch,
    private readonly projects: ProjectsService,
    private readonly bus: Bus,
  ) {}

  async search(caller: Caller, q: CrossSearchQuery, requestId?: string) {
    const text = searchText(q.q);
    const limit = q.limit ?? 20;
    const types = new Set((q.types ?? "item,note").split(","));
    const withContent = q.include === "content";
    const path = q.path?.trim().replace(/^\.?\/+/, "").replace(/\/+$/, "") || undefined;
    const project = q.project === undefined ? undefined : await this.resolveProject(caller, q.project);
    if (q.exactProject && !project) throw new AppError("validation_failed", "exactProject needs project", { fields: { project: "required with exactProject" } });
    if (q.exactPath && !path) throw new AppError("validation_failed", "exactPath needs path", { fields: { path: "required with exactPath" } });
    // Items belong to no project and have no paths: an exact project or path leaves only notes.
    const wantItems = types.has("item") && !q.exactProject && !q.exactPath;
    const wantNotes = types.has("note") && holds(caller, "notes.read", "GET");

    const [items, notes] = await Promise.all([
      wantItems ? this.items(caller, text, q.mode, limit, withContent, requestId) : { items: [] as SearchedItem[], count: 0, mode: undefined },
      wantNotes
        ? this.notes.findIn(caller, text, q.mode, this.noteFilters(q, project, path), { limit, offset: 0 })
        : { found: [] as NoteFound[], count: 0, mode: undefined },
    ]);

    const results: Result[] = [
      ...items.items.map((it, rank): Result => ({
        type: "item",
        id: it.id,
        title: it.title,
        snippet: it.search.snippet,
        matchedField: it.search.matchedField,
        score: 1 / (rrfK + rank + 1),
        ...(withContent ? { body: { text: it.contentMarkdown ?? "", cut: false } } : {}),
      })),
      ...notes.found.map((n, rank): Result => {
        const inProject = project !== undefined && (n.source.project_id === project.id || project.keys.includes(n.source.repository_key ?? ""));
        const boost = 1 + (inProject ? projectBoost : 0) + (path ? pathBoost * pathAffinity(n.source.paths, path) : 0);
        const first = n.lines.ranges[0];
        return {
          type: "note",
          id: n.source.id,
          title: n.source.title,
          snippet: noteSnippet(n),
          matchedField: n.matchedField,
          score: boost / (rrfK + rank + 1),
          revision: n.revision,
          ...(first ? { lineRange: first } : {}),
          // The index holds the first 256K characters: a body that long may go on.
          ...(withContent ? { body: { text: n.source.body_head, cut: n.source.body_head.length >= indexedBodyChars } } : {}),
        };
      }),
    ]
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, limit);

    const truncated = withContent ? shareContent(results, crossSearchContentBytes) : false;
    // The mode served is the one both lists were served in; either served lexically (semantic off) makes it lexical.
    const modes = [items.mode, notes.mode].filter((m): m is SearchModeName => m !== undefined);
    const mode = modes.length > 0 && modes.every((m) => m === modes[0]) ? modes[0]! : "lexical";
    return { results: results.map(({ body: _, ...r }) => r), count: items.count + notes.count, mode, truncated };
  }

  /**
   * A project id of the account (with its repositories), or a repository address (with the live project holding
   * it, if any): notes of the project or naming one of those repositories belong to it.
   */
  private async resolveProject(caller: Caller, project: string): Promise<ProjectScope> {
    if (await this.projects.exists(caller.accountId, project)) {
      const { repositories } = (await this.projects.get(caller, project)).project;
      return { id: project, keys: repositories.map(repositoryKey).filter((k): k is string => k !== null) };
    }
    const key = repositoryKey(project);
    if (key === null) throw new AppError("validation_failed", "project is neither a project id nor a repository address", { fields: { project: "a project id or a repository address" } });
    return { id: (await this.projects.ownerOf(caller.accountId, key))?.id, keys: [key] };
  }

  private noteFilters(q: CrossSearchQuery, project: ProjectScope | undefined, path: string | undefined): NoteFilters {
    const f: NoteFilters = { archived: "false", kind: q.kind, state: q.state };
    if (q.tags !== undefined) f.tagSlugs = q.tags.split(",").map((t) => t.trim()).filter(Boolean);
    if (q.exactProject && project) f.inProject = { projectId: project.id, repositoryKeys: project.keys };
    if (q.exactPath && path) f.aboutPath = path;
    return f;
  }

  /** The items service's own search, as the caller (its key scope applies there). */
  private async items(caller: Caller, q: string, mode: SearchModeName | undefined, limit: number, withContent: boolean, requestId?: string) {
    const reply = (await this.bus.request(
      subjectOf("searchItems"),
      { params: {}, query: { q, ...(mode ? { mode } : {}), limit, ...(withContent ? { include: "content" } : {}) }, body: undefined },
      { timeoutMs: itemsTimeoutMs, headers: callerHeaders(caller, requestId) },
    )) as { items: SearchedItem[]; count: number; mode: SearchModeName };
    return reply;
  }
}

function noteSnippet(n: NoteFound): string {
  if (n.chunkText !== undefined) return cutBytes(n.chunkText, snippetBytes).text;
  const s = n.source;
  const first = n.lines.ranges[0];
  if (n.matchedField === "body" && first) {
    const lines = s.body_head.split(/\r?\n/);
    return snippet(lines.slice(first.startLine - 1, first.endLine + 2).join("\n"), n.terms, snippetBytes);
  }
  const texts: Record<string, string> = {
    title: s.title,
    tags: s.tags.join(", "),
    description: typeof s.properties.description === "string" ? s.properties.description : "",
    repository: s.repository ?? "",
    paths: s.paths.join(", "),
    body: s.body_head,
  };
  return snippet(texts[n.matchedField] ?? s.title, n.terms, snippetBytes);
}

/**
 * Gives each result an equal share of the budget; what a short one leaves is shared among the longer ones (water
 * filling, shortest first). Returns true when some content was cut.
 */
function shareContent(results: Result[], budget: number): boolean {
  let left = budget;
  let cutAny = false;
  const order = results.map((r, i) => ({ r, i, size: Buffer.byteLength(r.body?.text ?? "", "utf8") })).sort((a, b) => a.size - b.size);
  order.forEach(({ r, size }, k) => {
    const share = Math.floor(left / (order.length - k));
    const cut = cutBytes(r.body?.text ?? "", Math.min(size, share));
    r.content = cut.text;
    r.contentTruncated = cut.truncated || (r.body?.cut ?? false);
    cutAny ||= r.contentTruncated;
    left -= Buffer.byteLength(cut.text, "utf8");
  });
  return cutAny;
}
