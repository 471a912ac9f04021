// Settings: exports. Start an export of the library (Markdown ZIP, JSON or CSV), watch it run, download it.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { Alert } from "../components/Alert.tsx";

interface ExportJob {
  id: string;
  status: string;
  format: string;
  itemCount: number;
  sizeBytes: number;
  createdAt: number;
  error: string | null;
}

const formats = [
  { value: "markdown_zip", label: "Markdown (ZIP)" },
  { value: "json", label: "JSON" },
  { value: "csv", label: "CSV" },
];

export function Exports() {
  const [jobs, setJobs] = useState<ExportJob[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => api<{ exports: ExportJob[] }>("GET", "/api/exports?limit=20").then((r) => setJobs(r.exports));
  useEffect(() => void load(), []);
  // While a job runs, look again every second.
  useEffect(() => {
    if (!jobs?.some((j) => j.status === "queued" || j.status === "running")) return;
    const timer = setTimeout(() => void load(), 1000);
    return () => clearTimeout(timer);
  }, [jobs]);

  const start = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    try {
      setError(null);
      await api("POST", "/api/exports", { format: String(form.get("format") ?? "json"), includeContent: form.get("content") === "on" });
      await load();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };

  return (
    <main class="settings">
      <h1>Exports</h1>
      <form class="create-client" onSubmit={(e) => void start(e)} aria-label="New export">
        <label>
          Format
          <select name="format">
            {formats.map((f) => (
              <option value={f.value}>{f.label}</option>
            ))}
          </select>
        </label>
        <label class="inline">
          <input type="checkbox" name="content" defaultChecked /> with saved text
        </label>
        <button type="submit">Export</button>
      </form>
      <Alert text={error} />
      <ul class="clients">
        {(jobs ?? []).map((j) => (
          <li key={j.id} aria-label={`Export ${j.id}`}>
            <span class="name">{formats.find((f) => f.value === j.format)?.label ?? j.format}</span>
            <span class="meta">
              {j.status} · {j.itemCount} items{j.sizeBytes ? ` · ${Math.ceil(j.sizeBytes / 1024)} KB` : ""}
              {j.error ? ` · ${j.error}` : ""}
            </span>
            {j.status === "completed" && (
              <a class="button" href={`/api/exports/${j.id}/download`} download>
                Download
              </a>
            )}
          </li>
        ))}
      </ul>
    </main>
  );
}
