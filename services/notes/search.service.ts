// Notes search: the index kept in step with note events (never on the request path), rebuilt on demand, and
// GET /api/notes/search answering compact coordinates (the note, its revision, the lines that match).
import type { Caller, NoteEventMessage } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { indexText, prepareQuery, type SearchDoc, type SearchEngine, type SearchHit } from "@trove/search";
import type { NoteFilters, NotesRepository, SearchSource } from "./notes.repository.ts";
import { filtersOf, type ListQuery } from "./notes.service.ts";
import { indexedBodyChars, type NoteFound, type NoteMatchedField, type SearchModeName } from "./search-shapes.ts";
import type { SemanticNoteSearch } from "./semantic-search.service.ts";

/** Body characters one search request looks through for line coordinates, over all its results (later results
 * of a page of very long notes may then show fewer lines). */
const lineScanChars = 2 * 1024 * 1024;
/** Line ranges a result shows at most. */
const maxRanges = 10;

export class NoteSearchIndexer {
  constructor(
    private readonly engine: SearchEngine,
    private readonly repo: NotesRepository,
  ) {}

  /**
   * The consumer's handler for a batch of note events: each note they name is read again once and its document
   * written (or removed when the note is gone), so order and repeats do not matter.
   */
  async onEvents(events: Pick<NoteEventMessage, "accountId" | "noteId">[]): Promise<void> {
    // An event without a note names nothing to index; handing it over again would not change that.
    const readable = events.filter((e) => typeof e.noteId === "string" && typeof e.accountId === "string");
    const named = new Map(readable.map((e) => [e.noteId, e.accountId]));
    if (named.size === 0) return;
    const sources = await this.repo.searchSources([...named.keys()], indexedBodyChars);
    if (sources.length > 0) await this.engine.index(sources.map(docOf));
    const found = new Set(sources.map((s) => s.id));
    const gone = new Map<string, string[]>();
    for (const [noteId, accountId] of named) if (!found.has(noteId)) gone.set(accountId, [...(gone.get(accountId) ?? []), noteId]);
    for (const [accountId, ids] of gone) await this.engine.remove(accountId, ids);
  }

  /** On start: an empty index next to existing notes (just upgraded) is filled in the background. */
  async reindexIfEmpty(): Promise<number> {
    if (!(await this.repo.hasNotes()) || !(await this.engine.isEmpty())) return 0;
    return this.reindex();
  }

  /** Rebuilds every note's document from the database; returns how many were indexed. */
  async reindex(batch = 200): Promise<number> {
    let n = 0;
    for (let after = ""; ; ) {
      const sources = await this.repo.searchSourcesAfter(after, batch, indexedBodyChars);
      if (sources.length === 0) return n;
      await this.engine.index(sources.map(docOf));
      n += sources.length;
      after = sources.at(-1)!.id;
    }
  }
}


export class NoteSearch {
  constructor(
    private readonly engine: SearchEngine,
    private readonly repo: NotesRepository,
    private readonly byMeaning?: SemanticNoteSearch,
  ) {}

  /** `find` in the asked mode: `semantic` and `hybrid` by meaning when vectors are there (semantic-search.service.ts). */
  async findIn(caller: Caller, q: string, mode: SearchModeName | undefined, filters: NoteFilters, page: { limit: number; offset: number }) {
    const byMeaning = await this.byMeaning?.find(caller, q, mode ?? "hybrid", filters, page, (p) => this.find(caller, q, filters, p));
    if (byMeaning) return byMeaning;
    if (mode === "semantic") throw new AppError("semantic_unavailable", "semantic search is not available on this server; use mode=lexical or hybrid");
    return { ...(await this.find(caller, q, filters, page)), mode: "lexical" as const };
  }

  /** The notes matching `q` under the filters, best first, a page of them. */
  async find(caller: Caller, q: string, filters: NoteFilters, page: { limit: number; offset: number }): Promise<{ found: NoteFound[]; count: number }> {
    const { hits, count } = await this.engine.query({ accountId: caller.accountId, q, restrict: this.repo.filteredIds(caller.accountId, filters), ...page });
    const sources = new Map((await this.repo.searchSources(hits.map((h) => h.id), indexedBodyChars)).map((s) => [s.id, s]));
    const revisions = new Map((await this.repo.revisionsOf(caller.accountId, hits.map((h) => h.id))).map((n) => [n.id, n.current_revision]));
    const terms = prepareQuery(q).terms;
    // Lines are looked for within one budget per request, so a page of long notes cannot hold the event loop.
    let budget = lineScanChars;
    const found = hits.flatMap((h): NoteFound[] => {
      const source = sources.get(h.id);
      if (!source) return [];
      const scanned = source.body_head.slice(0, Math.max(0, budget));
      budget -= scanned.length;
      return [{ source, revision: revisions.get(h.id) ?? 0, score: h.score, matchedField: fieldOf(h, source, terms), lines: matchingLines(scanned, terms), terms }];
    });
    return { found, count };
  }

  async search(caller: Caller, q: { q: string; mode?: "lexical" | "semantic" | "hybrid"; limit?: number; offset?: number } & ListQuery) {
    const text = searchText(q.q);
    const limit = q.limit ?? 20;
    const offset = q.offset ?? 0;
    const { found, count, mode } = await this.findIn(caller, text, q.mode, filtersOf(q), { limit, offset });
    const results = found.map((f) => ({
      id: f.source.id,
      title: f.source.title,
      revision: f.revision,
      score: f.score,
      matchedField: f.matchedField,
      lineRanges: f.lines.ranges,
      matchCount: f.lines.count,
    }));
    return { results, count, limit, offset, mode };
  }
}

/** The query text of a search request: 400 when blank (whether semantic search is served is findIn's call). */
export function searchText(q: string): string {
  const text = q.trim();
  if (text === "") throw new AppError("validation_failed", "q is required", { fields: { q: "must not be blank" } });
  return text;
}

const description = (s: Pick<SearchSource, "properties">) => (typeof s.properties.description === "string" ? s.properties.description : "");

function docOf(s: SearchSource): SearchDoc {
  return {
    id: s.id,
    accountId: s.account_id,
    fields: [
      { name: "title", weight: "A", text: s.title },
      { name: "tags", weight: "B", text: s.tags.join(" ").replace(/-/g, " ") },
      { name: "description", weight: "B", text: description(s) },
      { name: "repository", weight: "C", text: (s.repository ?? "").replace(/[/:.@_]+/g, " ") },
      { name: "paths", weight: "C", text: s.paths.join(" ").replace(/[/._]+/g, " ") },
      { name: "body", weight: "D", text: s.body_head },
    ],
    fuzzy: [{ name: "title", text: s.title }],
  };
}

const byWeight: Record<string, NoteMatchedField[]> = { A: ["title"], B: ["tags", "description"], C: ["repository", "paths"], D: ["body"] };

function fieldOf(hit: SearchHit, s: SearchSource, terms: string[]): NoteMatchedField {
  if (hit.matched && "fuzzy" in hit.matched) return "title";
  const names = hit.matched ? byWeight[hit.matched.weight]! : allFields;
  if (names.length === 1) return names[0]!;
  // The short fields are tested; the body (long) is what is left, never folded here.
  const texts: Record<Exclude<NoteMatchedField, "body">, string> = {
    title: s.title,
    tags: s.tags.join(" "),
    description: description(s),
    repository: s.repository ?? "",
    paths: s.paths.join(" "),
  };
  for (const name of names) if (name !== "body" && terms.some((t) => indexText(texts[name]).includes(t))) return name;
  return names.includes("body") ? "body" : names[0]!;
}

const allFields: NoteMatchedField[] = ["title", "tags", "description", "repository", "paths", "body"];

/** 1-based lines of the body holding a query term (folded), merged into ranges when adjacent. */
function matchingLines(body: string, terms: string[]): { ranges: { startLine: number; endLine: number }[]; count: number } {
  const ranges: { startLine: number; endLine: number }[] = [];
  let count = 0;
  if (terms.length === 0 || body === "") return { ranges, count };
  const lines = body.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = indexText(lines[i]!);
    if (!terms.some((t) => line.includes(t))) continue;
    count++;
    const last = ranges.at(-1);
    if (last && last.endLine === i) last.endLine = i + 1;
    else if (ranges.length < maxRanges) ranges.push({ startLine: i + 1, endLine: i + 1 });
  }
  return { ranges, count };
}
