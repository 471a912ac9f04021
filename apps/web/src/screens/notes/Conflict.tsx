// The conflict screen: someone else saved the note first (409 revision_conflict), so theirs and mine are shown side by
// side with three ways out: keep theirs, keep mine, or merge by hand. Nothing is overwritten without a choice.
import type { Conflict, Draft } from "./types.ts";

export function NoteConflict({
  conflict,
  editingRevision,
  merged,
  onMerged,
  onKeepTheirs,
  onSave,
}: {
  conflict: Conflict;
  /** The revision the editor loaded, which the save was made against. */
  editingRevision: number;
  merged: string;
  onMerged: (text: string) => void;
  onKeepTheirs: () => void;
  /** Saves `next` at revision `at`. */
  onSave: (at: number, next: Draft) => void;
}) {
  const { theirs, mine } = conflict;
  return (
    <main class="note-editor conflict">
      <h1>Someone else saved this note first</h1>
      <p>
        It is at revision {theirs.currentRevision} now; you were editing revision {editingRevision}. Choose what to keep.
      </p>
      <div class="sides">
        <section aria-label="Theirs">
          <h2>Theirs (revision {theirs.currentRevision})</h2>
          <pre>{theirs.bodyMarkdown}</pre>
          <button type="button" class="secondary" onClick={onKeepTheirs}>
            Keep theirs
          </button>
        </section>
        <section aria-label="Mine">
          <h2>Mine</h2>
          <pre>{mine.body}</pre>
          <button type="button" onClick={() => onSave(theirs.currentRevision, mine)}>
            Keep mine
          </button>
        </section>
      </div>
      <section aria-label="Merge by hand">
        <h2>Merge by hand</h2>
        <label>
          Merged text
          <textarea rows={12} value={merged} onInput={(e) => onMerged(e.currentTarget.value)} />
        </label>
        <button type="button" onClick={() => onSave(theirs.currentRevision, { ...mine, body: merged })}>
          Save the merge
        </button>
      </section>
    </main>
  );
}
