// The note editor: title, a Markdown text with a preview, tags, kind, state and project, saved at the revision it was
// loaded at. When someone else saved first the conflict screen takes over. It also archives and restores the note,
// and shows the note's linked items.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../../api.ts";
import { renderMarkdown } from "../../markdown.ts";
import { onLinkClick } from "../../router.ts";
import { NoteConflict } from "./Conflict.tsx";
import { draftOf, slugOrNull, tagList } from "./draft.ts";
import { LinkedItems } from "./LinkedItems.tsx";
import type { Conflict, Draft, Note } from "./types.ts";
import { useProjects } from "./useProjects.ts";
import "./Notes.css";
import { ProjectOptions } from "./ProjectOptions.tsx";

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
    return (
      <NoteConflict
        conflict={conflict}
        editingRevision={base.currentRevision}
        merged={merged}
        onMerged={setMerged}
        onKeepTheirs={() => {
          setConflict(null);
          void load();
        }}
        onSave={(at, next) => void save(at, next)}
      />
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
              <ProjectOptions projects={projects} current={draft.project} />
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
      <LinkedItems noteId={id} links={base.itemLinks} onChanged={() => load(true)} />
    </main>
  );
}
