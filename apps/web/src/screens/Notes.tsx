// Notes: the list (newest first, filtered by the address query) and a new note; the editor with a Markdown preview,
// tags, kind, state and project, saved at the revision it was loaded at. When someone else saved first (409
// revision_conflict), the conflict screen shows theirs and mine: keep theirs, keep mine, or merge by hand; nothing is
// overwritten without a choice. The editor also archives and restores, and attaches library items to the note.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { renderMarkdown } from "../markdown.ts";
import { navigate, onLinkClick, useLocation } from "../router.ts";
import "./Notes.css";

const relations = ["source", "evidence", "example", "inspiration", "annotation"] as const;
type Relation = (typeof relations)[number];

interface ItemLink {
  id: string;
  itemId: string;
  highlightId: string | null;
  relation: Relation;
  annotation: string;
}

interface Note {
  id: string;
  title: string;
  bodyMarkdown: string;
  currentRevision: number;
  updatedAt: number;
  tags: string[];
  kind: string | null;
  state: string | null;
  project: string | null;
  archived: boolean;
  itemLinks: ItemLink[];
}

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

interface Project {
  id: string;
  name: string;
}

const filterKeys = ["q", "tags", "kind", "state", "project", "archived"] as const;
type FilterKey = (typeof filterKeys)[number];

const shows = [
  { value: "", label: "Current notes" },
  { value: "true", label: "Archived" },
  { value: "any", label: "All notes" },
];

function useProjects(): Project[] {
  const [projects, setProjects] = useState<Project[]>([]);
  useEffect(() => {
    api<{ projects: Project[] }>("GET", "/api/projects?limit=100").then((r) => setProjects(r.projects), () => {});
  }, []);
  return projects;
}

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
            {filters.project && !projects.some((p) => p.id === filters.project) && <option value={filters.project}>{filters.project}</option>}
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
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
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
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

/** What the editor holds: the text fields as typed. */
interface Draft {
  title: string;
  body: string;
  tags: string;
  kind: string;
  state: string;
  project: string;
}

const draftOf = (n: Note): Draft => ({
  title: n.title,
  body: n.bodyMarkdown,
  tags: n.tags.join(", "),
  kind: n.kind ?? "",
  state: n.state ?? "",
  project: n.project ?? "",
});

const tagList = (text: string) => [...new Set(text.split(",").map((t) => t.trim()).filter(Boolean))];
// Kind and state are slugs: typed words become one.
const slugOrNull = (text: string) => text.trim().toLowerCase().replace(/\s+/g, "-") || null;

interface Conflict {
  theirs: Note;
  mine: Draft;
}

export function NoteEditor({ id }: { id: string }) {
  const path = `/api/notes/${encodeURIComponent(id)}`;
  const projects = useProjects();
  const [base, setBase] = useState<Note | null>(null);
  const [draft, setDraft] = useState<Draft>({ title: "", body: "", tags: "", kind: "", state: "", project: "" });
  const [preview, setPreview] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [merged, setMerged] = useState("");
  const edit = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));

  // keepDraft: the fields as typed stay (after an archive or link change, which does not touch them).
  const load = async (keepDraft = false) => {
    const { note } = await api<{ note: Note }>("GET", path);
    setBase(note);
    if (!keepDraft) setDraft(draftOf(note));
    return note;
  };
  useEffect(() => void load().catch((e) => setStatus(String(e.message ?? e))), [id]);

  // Saves at revision `at`: title and body always, the metadata the user changed from what was loaded (so keeping
  // mine after a conflict does not undo their metadata changes). A conflict opens the conflict screen instead.
  const save = async (at: number, next: Draft) => {
    if (!base) return;
    setStatus("Saving…");
    const was = draftOf(base);
    const patch: Record<string, unknown> = { expectedRevision: at, title: next.title, bodyMarkdown: next.body };
    if (tagList(next.tags).join(",") !== tagList(was.tags).join(",")) patch.tags = tagList(next.tags);
    if (slugOrNull(next.kind) !== slugOrNull(was.kind)) patch.kind = slugOrNull(next.kind);
    if (slugOrNull(next.state) !== slugOrNull(was.state)) patch.state = slugOrNull(next.state);
    if (next.project !== was.project) patch.project = next.project || null;
    try {
      const res = await api<{ note: { currentRevision: number } }>("PATCH", path, patch);
      setConflict(null);
      const note = await load();
      setStatus(`Saved as revision ${res.note.currentRevision ?? note.currentRevision}.`);
    } catch (err) {
      if (err instanceof ApiError && err.code === "revision_conflict") {
        const { note: theirs } = await api<{ note: Note }>("GET", path);
        setConflict({ theirs, mine: next });
        setMerged(`${theirs.bodyMarkdown}\n\n<!-- mine -->\n${next.body}`);
        setStatus(null);
      } else {
        setStatus(err instanceof Error ? err.message : String(err));
      }
    }
  };

  const setArchived = async (archive: boolean) => {
    if (!base) return;
    setStatus(archive ? "Archiving…" : "Restoring…");
    try {
      await api("POST", `${path}/${archive ? "archive" : "restore"}`, { expectedRevision: base.currentRevision });
      await load(true);
      setStatus(archive ? "Archived." : "Restored.");
    } catch (err) {
      if (err instanceof ApiError && err.code === "revision_conflict") {
        await load();
        setStatus(`Someone else changed this note first; it has been reloaded. ${archive ? "Archive" : "Restore"} it again if you still want to.`);
      } else {
        setStatus(err instanceof Error ? err.message : String(err));
      }
    }
  };

  if (!base) return <main class="note-editor" aria-busy="true">{status}</main>;

  if (conflict) {
    const { theirs, mine } = conflict;
    return (
      <main class="note-editor conflict">
        <h1>Someone else saved this note first</h1>
        <p>
          It is at revision {theirs.currentRevision} now; you were editing revision {base.currentRevision}. Choose what to keep.
        </p>
        <div class="sides">
          <section aria-label="Theirs">
            <h2>Theirs (revision {theirs.currentRevision})</h2>
            <pre>{theirs.bodyMarkdown}</pre>
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setConflict(null);
                void load();
              }}
            >
              Keep theirs
            </button>
          </section>
          <section aria-label="Mine">
            <h2>Mine</h2>
            <pre>{mine.body}</pre>
            <button type="button" onClick={() => void save(theirs.currentRevision, mine)}>
              Keep mine
            </button>
          </section>
        </div>
        <section aria-label="Merge by hand">
          <h2>Merge by hand</h2>
          <label>
            Merged text
            <textarea rows={12} value={merged} onInput={(e) => setMerged(e.currentTarget.value)} />
          </label>
          <button type="button" onClick={() => void save(theirs.currentRevision, { ...mine, body: merged })}>
            Save the merge
          </button>
        </section>
      </main>
    );
  }

  const was = draftOf(base);
  const dirty = (Object.keys(was) as (keyof Draft)[]).some((k) => draft[k] !== was[k]);

  return (
    <main class="note-editor">
      {base.archived && (
        <p class="archived-marker">
          <strong>Archived</strong> <span class="meta">This note is left out of the note list unless archived notes are shown.</span>
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save(base.currentRevision, draft);
        }}
        aria-label="Edit note"
      >
        <label>
          Title
          <input name="title" required value={draft.title} onInput={(e) => edit({ title: e.currentTarget.value })} />
        </label>
        <div class="note-meta">
          <label class="wide">
            Tags
            <input name="tags" value={draft.tags} placeholder="comma separated" onInput={(e) => edit({ tags: e.currentTarget.value })} />
          </label>
          <label>
            Kind
            <input name="kind" list="note-kinds" value={draft.kind} placeholder="decision, plan, log…" onInput={(e) => edit({ kind: e.currentTarget.value })} />
          </label>
          <label>
            State
            <input name="state" list="note-states" value={draft.state} placeholder="draft, active, done…" onInput={(e) => edit({ state: e.currentTarget.value })} />
          </label>
          <label>
            Project
            <select name="project" value={draft.project} onChange={(e) => edit({ project: e.currentTarget.value })}>
              <option value="">None</option>
              {draft.project && !projects.some((p) => p.id === draft.project) && <option value={draft.project}>{draft.project}</option>}
              {projects.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
          <datalist id="note-kinds">
            {["decision", "plan", "log", "reference", "idea"].map((k) => (
              <option key={k} value={k} />
            ))}
          </datalist>
          <datalist id="note-states">
            {["draft", "active", "done"].map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
        </div>
        <div class="tabs" role="group" aria-label="View">
          <button type="button" class={preview ? "secondary" : ""} aria-pressed={!preview} onClick={() => setPreview(false)}>
            Write
          </button>
          <button type="button" class={preview ? "" : "secondary"} aria-pressed={preview} onClick={() => setPreview(true)}>
            Preview
          </button>
        </div>
        {preview ? (
          <article class="content" dangerouslySetInnerHTML={{ __html: renderMarkdown(draft.body) }} />
        ) : (
          <label>
            Text
            <textarea name="body" rows={18} value={draft.body} onInput={(e) => edit({ body: e.currentTarget.value })} />
          </label>
        )}
        <div class="actions">
          <button type="submit">Save</button>
          <span class="meta">revision {base.currentRevision}</span>
          <a href={`/notes/${id}/history`} onClick={(e) => onLinkClick(e, `/notes/${id}/history`)}>
            History
          </a>
          {/* Archiving makes a revision: unsaved edits would then meet a conflict, so they are saved first. */}
          <button
            type="button"
            class="secondary"
            disabled={dirty}
            title={dirty ? "Save your changes first" : undefined}
            onClick={() => void setArchived(!base.archived)}
          >
            {base.archived ? "Restore" : "Archive"}
          </button>
          {status && <span role="status">{status}</span>}
        </div>
      </form>
      <ItemLinks noteId={id} links={base.itemLinks} onChanged={() => load(true)} />
    </main>
  );
}

interface ItemSummary {
  id: string;
  title: string;
  url: string;
}

const itemLabel = (i: ItemSummary) => i.title || i.url;

/** The note's linked items, and a form to find an item and attach it. */
function ItemLinks({ noteId, links, onChanged }: { noteId: string; links: ItemLink[]; onChanged: () => Promise<unknown> }) {
  const base = `/api/notes/${encodeURIComponent(noteId)}/item-links`;
  // Item titles by id; absent while unknown, false when the item cannot be read (deleted, or out of the key's scope).
  const [items, setItems] = useState<Record<string, ItemSummary | false>>({});
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [q, setQ] = useState("");
  const [results, setResults] = useState<ItemSummary[] | null>(null);
  const [picked, setPicked] = useState<string | null>(null);
  const [relation, setRelation] = useState<Relation>("source");
  const [annotation, setAnnotation] = useState("");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    for (const link of links) {
      if (link.itemId in items) continue;
      api<ItemSummary>("GET", `/api/items/${encodeURIComponent(link.itemId)}`).then(
        (i) => setItems((m) => ({ ...m, [link.itemId]: { id: i.id, title: i.title, url: i.url } })),
        () => setItems((m) => ({ ...m, [link.itemId]: false })),
      );
    }
  }, [links]);

  // The search follows the typing, a moment after it stops (Enter searches at once); only the latest answer shows.
  const asked = useRef(0);
  const search = (words: string) => {
    const n = ++asked.current;
    if (!words) return setResults(null);
    api<{ items: ItemSummary[] }>("GET", `/api/items/search?${new URLSearchParams({ q: words, limit: "10" })}`).then(
      (r) => n === asked.current && setResults(r.items),
      (e) => n === asked.current && setMessage({ text: e instanceof Error ? e.message : String(e), error: true }),
    );
  };
  useEffect(() => {
    const timer = setTimeout(() => search(q.trim()), 250);
    return () => clearTimeout(timer);
  }, [q]);

  const run = async (what: () => Promise<string>) => {
    setBusy(true);
    try {
      const text = await what();
      await onChanged();
      setMessage({ text, error: false });
    } catch (err) {
      setMessage({ text: err instanceof Error ? err.message : String(err), error: true });
    } finally {
      setBusy(false);
    }
  };
  const attach = () =>
    run(async () => {
      const res = await api<{ existing: boolean }>("POST", base, { itemId: picked, relation, annotation: annotation.trim() || undefined });
      if (res.existing) return "That item is already attached.";
      setPicked(null);
      setAnnotation("");
      return "Attached.";
    });
  const remove = (link: ItemLink) =>
    run(async () => {
      await api("DELETE", `${base}/${encodeURIComponent(link.id)}`);
      return "Removed.";
    });

  return (
    <section class="item-links" aria-label="Linked items">
      <h2>Linked items</h2>
      {links.length === 0 ? (
        <p class="empty">No items attached.</p>
      ) : (
        <ul class="items">
          {links.map((link) => {
            const item = items[link.itemId];
            const name = item ? itemLabel(item) : item === false ? "An item that is no longer available" : "…";
            return (
              <li key={link.id}>
                <a href={`/items/${link.itemId}`} onClick={(e) => onLinkClick(e, `/items/${link.itemId}`)}>
                  {name}
                </a>
                <span class="meta">
                  {link.relation}
                  {link.annotation && ` · ${link.annotation}`}
                </span>
                <button type="button" class="secondary" disabled={busy} aria-label={`Remove ${name}`} onClick={() => void remove(link)}>
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <form
        class="attach"
        aria-label="Attach an item"
        onSubmit={(e) => {
          e.preventDefault();
          if (picked) void attach();
        }}
      >
        <h3>Attach an item</h3>
        <label>
          Find an item
          <input
            type="search"
            name="item-q"
            value={q}
            placeholder="Words in titles, text, tags"
            onInput={(e) => setQ(e.currentTarget.value)}
            onKeyDown={(e) => {
              // Enter searches now rather than attaching.
              if (e.key === "Enter") {
                e.preventDefault();
                search(q.trim());
              }
            }}
          />
        </label>
        {results &&
          (results.length === 0 ? (
            <p class="empty">No items match.</p>
          ) : (
            <fieldset class="results">
              <legend>Pick one</legend>
              {results.map((r) => (
                <label key={r.id} class="inline">
                  <input type="radio" name="item" value={r.id} checked={picked === r.id} onChange={() => setPicked(r.id)} />
                  {itemLabel(r)}
                </label>
              ))}
            </fieldset>
          ))}
        <div class="attach-fields">
          <label>
            Relation
            <select name="relation" value={relation} onChange={(e) => setRelation(e.currentTarget.value as Relation)}>
              {relations.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label class="wide">
            Annotation
            <input name="annotation" value={annotation} placeholder="optional: why it is here" onInput={(e) => setAnnotation(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={!picked || busy}>
            Attach
          </button>
        </div>
        {message && (
          <p class={message.error ? "error" : "status"} role={message.error ? "alert" : "status"}>
            {message.text}
          </p>
        )}
      </form>
    </section>
  );
}
