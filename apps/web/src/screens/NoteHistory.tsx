// A note's history: every revision, a line diff between any two, and restoring an older one (as a new revision,
// pinned to the revision shown, so a concurrent edit is never overwritten).
import { diffLines } from "diff";
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { navigate } from "../router.ts";

interface Revision {
  revisionNumber: number;
  operation: string;
  title: string;
  createdAt: number;
  bodyMarkdown?: string;
}

export function NoteHistory({ id }: { id: string }) {
  const [revisions, setRevisions] = useState<Revision[] | null>(null);
  const [from, setFrom] = useState<number | null>(null);
  const [to, setTo] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api<{ revisions: Revision[] }>("GET", `/api/notes/${encodeURIComponent(id)}/history?include=content&limit=200`).then(
      (r) => {
        setRevisions(r.revisions);
        setTo(r.revisions[0]?.revisionNumber ?? null);
        setFrom(r.revisions[1]?.revisionNumber ?? r.revisions[0]?.revisionNumber ?? null);
      },
      (e) => setError(String(e.message ?? e)),
    );
  }, [id]);

  if (error) return <main class="note-history"><p class="error" role="alert">{error}</p></main>;
  if (!revisions || from === null || to === null) return <main class="note-history" aria-busy="true" />;

  const current = revisions[0]!.revisionNumber;
  const body = (n: number) => revisions.find((r) => r.revisionNumber === n)?.bodyMarkdown ?? "";
  const parts = diffLines(body(from), body(to));
  const restore = async (n: number) => {
    try {
      await api("POST", `/api/notes/${encodeURIComponent(id)}/revisions/${n}/restore`, { expectedRevision: current });
      navigate(`/notes/${id}`);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  const picker = (label: string, value: number, set: (n: number) => void) => (
    <label>
      {label}
      <select value={String(value)} onChange={(e) => set(Number(e.currentTarget.value))}>
        {revisions.map((r) => (
          <option value={String(r.revisionNumber)}>
            {r.revisionNumber} · {r.operation} · {new Date(r.createdAt * 1000).toLocaleString()}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <main class="note-history">
      <h1>History of “{revisions[0]!.title}”</h1>
      <div class="create-client">
        {picker("From revision", from, setFrom)}
        {picker("To revision", to, setTo)}
        {to !== current && (
          <button type="button" onClick={() => void restore(to)}>
            Restore revision {to}
          </button>
        )}
      </div>
      <pre class="diff" aria-label="Changes">
        {parts.map((p, i) => (
          <span key={i} class={p.added ? "added" : p.removed ? "removed" : ""}>
            {p.value
              .replace(/\n$/, "")
              .split("\n")
              .map((line) => `${p.added ? "+ " : p.removed ? "- " : "  "}${line}\n`)
              .join("")}
          </span>
        ))}
      </pre>
    </main>
  );
}
