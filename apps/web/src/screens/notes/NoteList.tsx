// The note list: newest first, filtered by the address query (search words, tags, kind, state, project, archived),
// with a button for a new note. The filters live in the address so back and forward and shared links keep them.
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { navigate, onLinkClick, useLocation } from "../../router.ts";
import { useProjects } from "./useProjects.ts";
import "./Notes.css";
import { Alert } from "../../components/Alert.tsx";
import { ProjectOptions } from "./ProjectOptions.tsx";

/** A list row: a manifest, or a search result (which carries no metadata). */
interface Row {
  id: string;
  title: string;
  currentRevision: number;
  tags?: string[];
  kind?: string | null;
  state?: string | null;
  archived?: boolean;
}

const filterKeys = ["q", "tags", "kind", "state", "project", "archived"] as const;
type FilterKey = (typeof filterKeys)[number];

const shows = [
  { value: "", label: "Current notes" },
  { value: "true", label: "Archived" },
  { value: "any", label: "All notes" },
];

export function NoteList() {
  const { query } = useLocation();
  const filters = Object.fromEntries(filterKeys.map((k) => [k, query.get(k) ?? ""])) as Record<FilterKey, string>;
  const projects = useProjects();
  const [notes, setNotes] = useState<Row[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stale = false;
    const params = new URLSearchParams({ limit: filters.q ? "100" : "200" });
    for (const k of filterKeys) if (filters[k]) params.set(k, filters[k]);
    const fetched = filters.q
      ? api<{ results: { id: string; title: string; revision: number }[] }>("GET", `/api/notes/search?${params}`).then((r) =>
          r.results.map((n): Row => ({ id: n.id, title: n.title, currentRevision: n.revision })),
        )
      : api<{ notes: Row[] }>("GET", `/api/notes?${params}`).then((r) => r.notes);
    fetched.then(
      (rows) => {
        if (stale) return;
        setNotes(rows);
        setError(null);
      },
      (e) => !stale && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => void (stale = true);
  }, [query.toString()]);

  const go = (next: Partial<Record<FilterKey, string>>) => {
    const params = new URLSearchParams();
    for (const k of filterKeys) {
      const v = (next[k] ?? filters[k]).trim();
      if (v) params.set(k, v);
    }
    navigate(params.size ? `/notes?${params}` : "/notes");
  };
  // Every field of the form at once, so changing a select keeps what was typed in the others.
  const fromForm = (form: HTMLFormElement) => Object.fromEntries(filterKeys.map((k) => [k, String(new FormData(form).get(k) ?? "")]));

  const create = async () => {
    try {
      const created = await api<{ note: { id: string } }>("POST", "/api/notes", { title: "Untitled note", bodyMarkdown: "" });
      navigate(`/notes/${created.note.id}`);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const filtered = filterKeys.some((k) => filters[k]);

  return (
    <main class="notes">
      <div class="heading-row">
        <h1>Notes</h1>
        <button type="button" onClick={() => void create()}>
          New note
        </button>
      </div>
      {/* Keyed on the query so back and forward show the filters of the address, not what was last typed. */}
      <form
        key={query.toString()}
        class="filters note-filters"
        role="search"
        aria-label="Filter notes"
        onSubmit={(e) => {
          e.preventDefault();
          go(fromForm(e.currentTarget));
        }}
      >
        <label>
          Search
          <input type="search" name="q" defaultValue={filters.q} placeholder="Words in titles, tags and text" />
        </label>
        <label>
          Tags
          <input name="tags" defaultValue={filters.tags} placeholder="any of: tag, another" />
        </label>
        <label>
          Kind
          <input name="kind" defaultValue={filters.kind} placeholder="decision, plan…" />
        </label>
        <label>
          State
          <input name="state" defaultValue={filters.state} placeholder="draft, done…" />
        </label>
        <label>
          Project
          <select name="project" value={filters.project} onChange={(e) => go(fromForm(e.currentTarget.form!))}>
            <option value="">Any project</option>
            <ProjectOptions projects={projects} current={filters.project} />
          </select>
        </label>
        <label>
          Show
          <select name="archived" value={filters.archived} onChange={(e) => go(fromForm(e.currentTarget.form!))}>
            {shows.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Apply</button>
        {filtered && (
          <button type="button" class="secondary" onClick={() => navigate("/notes")}>
            Clear filters
          </button>
        )}
      </form>
      <Alert text={error} />
      {notes === null ? (
        !error && <p aria-busy="true">Loading…</p>
      ) : notes.length === 0 ? (
        <p class="empty">{filtered ? "No notes match." : "No notes yet."}</p>
      ) : (
        <ul class="items">
          {notes.map((n) => (
            <li key={n.id}>
              <a href={`/notes/${n.id}`} onClick={(e) => onLinkClick(e, `/notes/${n.id}`)}>
                {n.title}
              </a>
              <span class="meta">
                revision {n.currentRevision}
                {n.archived && " · archived"}
                {n.kind && ` · ${n.kind}`}
                {n.state && ` · ${n.state}`}
                {n.tags && n.tags.length > 0 && ` · ${n.tags.join(", ")}`}
              </span>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
