// Notes: the list (newest first) and a new note; the editor with a Markdown preview, saved at the revision it was
// loaded at. When someone else saved first (409 revision_conflict), the conflict screen shows theirs and mine:
// keep theirs, keep mine, or merge by hand; nothing is overwritten without a choice.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { renderMarkdown } from "../markdown.ts";
import { navigate, onLinkClick } from "../router.ts";

interface Note {
  id: string;
  title: string;
  bodyMarkdown: string;
  currentRevision: number;
  updatedAt: number;
  tags: string[];
}

export function NoteList() {
  const [notes, setNotes] = useState<Note[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<{ notes: Note[] }>("GET", "/api/notes?limit=200").then((r) => setNotes(r.notes), (e) => setError(String(e.message ?? e)));
  }, []);
  const create = async () => {
    const created = await api<{ note: { id: string } }>("POST", "/api/notes", { title: "Untitled note", bodyMarkdown: "" });
    navigate(`/notes/${created.note.id}`);
  };
  return (
    <main class="notes">
      <div class="heading-row">
        <h1>Notes</h1>
        <button type="button" onClick={() => void create()}>
          New note
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {notes && notes.length === 0 && <p class="empty">No notes yet.</p>}
      {notes && (
        <ul class="items">
          {notes.map((n) => (
            <li key={n.id}>
              <a href={`/notes/${n.id}`} onClick={(e) => onLinkClick(e, `/notes/${n.id}`)}>
                {n.title}
              </a>
              <span class="meta">
                revision {n.currentRevision}
                {n.tags.length > 0 && ` · ${n.tags.join(", ")}`}
              </span>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}

interface Conflict {
  theirs: Note;
  mine: { title: string; body: string };
}

export function NoteEditor({ id }: { id: string }) {
  const [base, setBase] = useState<Note | null>(null);
  const [title, setTitle] = useState("");
  const [body, setBody] = useState("");
  const [preview, setPreview] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [merged, setMerged] = useState("");

  const load = async () => {
    const { note } = await api<{ note: Note }>("GET", `/api/notes/${encodeURIComponent(id)}`);
    setBase(note);
    setTitle(note.title);
    setBody(note.bodyMarkdown);
    return note;
  };
  useEffect(() => void load().catch((e) => setStatus(String(e.message ?? e))), [id]);

  // Saves title and body at revision `at`; a conflict opens the conflict screen instead.
  const save = async (at: number, next: { title: string; body: string }) => {
    setStatus("Saving…");
    try {
      const res = await api<{ note: { currentRevision: number } }>("PATCH", `/api/notes/${encodeURIComponent(id)}`, {
        expectedRevision: at,
        title: next.title,
        bodyMarkdown: next.body,
      });
      setConflict(null);
      const note = await load();
      setStatus(`Saved as revision ${res.note.currentRevision ?? note.currentRevision}.`);
    } catch (err) {
      if (err instanceof ApiError && err.code === "revision_conflict") {
        const { note: theirs } = await api<{ note: Note }>("GET", `/api/notes/${encodeURIComponent(id)}`);
        setConflict({ theirs, mine: next });
        setMerged(`${theirs.bodyMarkdown}\n\n<!-- mine -->\n${next.body}`);
        setStatus(null);
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
            <button type="button" class="secondary" onClick={() => { setConflict(null); void load(); }}>
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
          <button type="button" onClick={() => void save(theirs.currentRevision, { title: mine.title, body: merged })}>
            Save the merge
          </button>
        </section>
      </main>
    );
  }

  return (
    <main class="note-editor">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save(base.currentRevision, { title, body });
        }}
        aria-label="Edit note"
      >
        <label>
          Title
          <input name="title" required value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <div class="tabs" role="group" aria-label="View">
          <button type="button" class={preview ? "secondary" : ""} aria-pressed={!preview} onClick={() => setPreview(false)}>
            Write
          </button>
          <button type="button" class={preview ? "" : "secondary"} aria-pressed={preview} onClick={() => setPreview(true)}>
            Preview
          </button>
        </div>
        {preview ? (
          <article class="content" dangerouslySetInnerHTML={{ __html: renderMarkdown(body) }} />
        ) : (
          <label>
            Text
            <textarea name="body" rows={18} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
          </label>
        )}
        <div class="actions">
          <button type="submit">Save</button>
          <span class="meta">revision {base.currentRevision}</span>
          <a href={`/notes/${id}/history`} onClick={(e) => onLinkClick(e, `/notes/${id}/history`)}>
            History
          </a>
          {status && <span role="status">{status}</span>}
        </div>
      </form>
    </main>
  );
}
