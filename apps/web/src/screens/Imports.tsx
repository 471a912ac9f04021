// Settings: imports. Bring a library in from another service's export file, watch the job, read what failed.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import "./Imports.css";
import { Alert } from "../components/Alert.tsx";

interface ImportJob {
  id: string;
  status: string;
  format: string;
  fileName: string | null;
  entries: number;
  processed: number;
  created: number;
  alreadyPresent: number;
  failed: number;
  notImported: number;
  stoppedBy: string | null;
  fetch: { pending: number; fetched: number; failed: number };
  createdAt: number;
  error: string | null;
}

interface Failure {
  index: number;
  url: string | null;
  reason: string;
}

const formats = [
  { value: "netscape_html", label: "Netscape bookmarks HTML" },
  { value: "pocket_csv", label: "Pocket CSV" },
  { value: "omnivore_zip", label: "Omnivore ZIP" },
  { value: "instapaper_csv", label: "Instapaper CSV" },
  { value: "readwise_csv", label: "Readwise CSV" },
  { value: "wallabag_json", label: "Wallabag JSON" },
  { value: "karakeep_json", label: "Karakeep JSON" },
  { value: "trove_json", label: "Trove JSON" },
  { value: "trove_markdown_zip", label: "Trove Markdown ZIP" },
];

const formatLabel = (format: string) => formats.find((f) => f.value === format)?.label ?? format;

// Failed entries per request; "More" asks for the next ones (the API gives at most 1,000 at once).
const PAGE = 100;

const busy = (j: ImportJob) => j.status === "queued" || j.status === "running" || j.fetch.pending > 0;

function describeError(err: unknown): string {
  if (!(err instanceof ApiError)) return String(err);
  if (err.code === "payload_too_large") {
    const limit = Number(err.body.limit);
    return Number.isFinite(limit) && limit > 0
      ? `The file is too large: at most ${formatBytes(limit)} may be uploaded.`
      : "The file is too large to upload.";
  }
  return err.message;
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${+(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
}

export function Imports() {
  const [jobs, setJobs] = useState<ImportJob[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const load = () =>
    api<{ imports: ImportJob[] }>("GET", "/api/imports?limit=20").then(
      (r) => setJobs(r.imports),
      (err) => setError(describeError(err)),
    );
  useEffect(() => void load(), []);
  // While a job runs or its pages are still being fetched, look again every second.
  useEffect(() => {
    if (!jobs?.some(busy)) return;
    const timer = setTimeout(() => void load(), 1000);
    return () => clearTimeout(timer);
  }, [jobs]);

  const start = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const file = fileInput.current?.files?.[0];
    if (!file) {
      setError("Choose an export file to import.");
      fileInput.current?.focus();
      return;
    }
    const format = String(new FormData(form).get("format") ?? "");
    const query = new URLSearchParams({ fileName: file.name.slice(0, 255) || "upload" });
    if (format) query.set("format", format);
    setError(null);
    setUploading(true);
    try {
      await api("POST", `/api/imports?${query}`, file);
      // Cleared so that pressing Import again does not import the same file twice by accident.
      form.reset();
      await load();
    } catch (err) {
      // The API's wording names its query parameter; say where to choose the format instead.
      const undetected = !format && err instanceof ApiError && err.code === "validation_failed" && typeof (err.body.fields as any)?.format === "string";
      setError(undetected ? "The file's format could not be recognised. If it is one of the formats listed, choose it under Format." : describeError(err));
    } finally {
      setUploading(false);
    }
  };

  return (
    <main class="settings imports">
      <h1>Imports</h1>
      <form class="create-client" onSubmit={(e) => void start(e)} aria-label="New import">
        <label>
          Export file
          <input ref={fileInput} type="file" name="file" required />
        </label>
        <label>
          Format
          <select name="format">
            <option value="">Detect from the file</option>
            {formats.map((f) => (
              <option value={f.value}>{f.label}</option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={uploading}>
          {uploading ? "Uploading…" : "Import"}
        </button>
      </form>
      <Alert text={error} />
      <h2 id="recent-imports">Recent imports</h2>
      {jobs && jobs.length === 0 && <p class="count">No imports yet.</p>}
      <ul class="clients" aria-labelledby="recent-imports">
        {(jobs ?? []).map((j) => (
          <ImportRow key={j.id} job={j} />
        ))}
      </ul>
    </main>
  );
}

function ImportRow({ job: j }: { job: ImportJob }) {
  const [open, setOpen] = useState(false);
  const name = j.fileName ?? "upload";
  const fetches = j.fetch.pending + j.fetch.fetched + j.fetch.failed;
  const parts = [
    `${j.processed} of ${j.entries} entries`,
    `${j.created} created`,
    `${j.alreadyPresent} already present`,
    `${j.failed} failed`,
    ...(j.notImported > 0 || j.stoppedBy ? [`${j.notImported} not imported${j.stoppedBy === "quota_reached" ? " (plan limit reached)" : j.stoppedBy ? ` (${j.stoppedBy})` : ""}`] : []),
    ...(fetches > 0 ? [`pages: ${j.fetch.pending} pending, ${j.fetch.fetched} fetched, ${j.fetch.failed} failed`] : []),
  ];
  return (
    <li aria-label={`Import of ${name}`}>
      <span class="name">{name}</span>
      <span class="meta">
        <span>{formatLabel(j.format)}</span> · <span class={`status ${j.status}`}>{j.status}</span> · <time dateTime={new Date(j.createdAt * 1000).toISOString()}>{new Date(j.createdAt * 1000).toLocaleString()}</time>
      </span>
      <button type="button" class="secondary" aria-expanded={open} aria-controls={`import-${j.id}-details`} onClick={() => setOpen((o) => !o)}>
        Details
      </button>
      <p class="counts">
        {parts.map((p) => (
          <span key={p}>{p}</span>
        ))}
      </p>
      {(j.status === "queued" || j.status === "running") && j.entries > 0 && (
        <progress value={j.processed} max={j.entries} aria-label={`Progress of ${name}`} />
      )}
      {j.error && (
        <p class="error job-error">
          {j.error}
        </p>
      )}
      {open && <Failures job={j} />}
    </li>
  );
}

function Failures({ job }: { job: ImportJob }) {
  const [failures, setFailures] = useState<Failure[] | null>(null);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const loaded = failures?.length ?? 0;
  const fetchPage = (offset: number, limit: number) =>
    api<{ failures: Failure[]; failuresCount: number }>("GET", `/api/imports/${encodeURIComponent(job.id)}?limit=${limit}&offset=${offset}`);

  // Read again from the start while the job still adds failures, keeping as many rows as were shown.
  useEffect(() => {
    let stale = false;
    fetchPage(0, Math.min(1000, Math.max(PAGE, loaded))).then(
      (r) => {
        if (stale) return;
        setFailures(r.failures);
        setTotal(r.failuresCount);
        setError(null);
      },
      (err) => !stale && setError(describeError(err)),
    );
    return () => {
      stale = true;
    };
  }, [job.id, job.status, job.processed, job.failed]);

  const more = async () => {
    try {
      const r = await fetchPage(loaded, PAGE);
      setFailures([...(failures ?? []), ...r.failures]);
      setTotal(r.failuresCount);
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <section id={`import-${job.id}-details`} class="deliveries failures" aria-label={`Failed entries of ${job.fileName ?? "upload"}`}>
      <Alert text={error} />
      {failures === null ? (
        !error && <p class="count">Loading…</p>
      ) : failures.length === 0 ? (
        <p class="count">No failed entries.</p>
      ) : (
        <>
          <p class="count">
            {loaded < total ? `${loaded} of ${total} failed entries shown` : `${total} failed ${total === 1 ? "entry" : "entries"}`}
          </p>
          <table>
            <thead>
              <tr>
                <th scope="col">Entry</th>
                <th scope="col">URL</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {failures.map((f, i) => (
                <tr key={i}>
                  {/* The API counts from 0; people count from 1. */}
                  <td>{f.index + 1}</td>
                  <td class="url">{f.url ?? "—"}</td>
                  <td>{f.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {loaded < total && (
            <button type="button" class="secondary" onClick={() => void more()}>
              More
            </button>
          )}
        </>
      )}
    </section>
  );
}
