// Projects: each with its repositories; a repository's context brief lists the recent notes about it (and a path
// in it), the index an agent or a person reads before starting work there.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { onLinkClick } from "../router.ts";

interface Project {
  id: string;
  name: string;
  description: string;
  state: string;
  repositories: string[];
}

interface Brief {
  repository: string;
  notes: { id: string; title: string; description?: string; kind: string | null; state: string | null; updatedAt: number }[];
  count: number;
}

export function Projects({ query }: { query: URLSearchParams }) {
  const [projects, setProjects] = useState<Project[] | null>(null);
  const repository = query.get("repository");
  const path = query.get("path") ?? "";
  useEffect(() => {
    api<{ projects: Project[] }>("GET", "/api/projects?limit=100").then((r) => setProjects(r.projects));
  }, []);
  return (
    <main class="projects">
      <h1>Projects</h1>
      {projects && projects.length === 0 && <p class="empty">No projects.</p>}
      <ul class="items">
        {(projects ?? []).map((p) => (
          <li key={p.id}>
            <strong>{p.name}</strong>
            <span class="meta">
              {p.state}
              {p.description ? ` · ${p.description}` : ""}
            </span>
            {p.repositories.map((r) => (
              <a href={`/projects?repository=${encodeURIComponent(r)}`} onClick={(e) => onLinkClick(e, `/projects?repository=${encodeURIComponent(r)}`)}>
                {r}
              </a>
            ))}
          </li>
        ))}
      </ul>
      {repository && <ContextBrief repository={repository} path={path} />}
    </main>
  );
}

function ContextBrief({ repository, path }: { repository: string; path: string }) {
  const [brief, setBrief] = useState<Brief | null>(null);
  useEffect(() => {
    const q = new URLSearchParams({ project: repository, limit: "20" });
    if (path) q.set("path", path);
    api<Brief>("GET", `/api/context/brief?${q}`).then(setBrief);
  }, [repository, path]);
  if (!brief) return <section aria-busy="true" />;
  return (
    <section class="brief" aria-label="Context brief">
      <h2>Context brief: {brief.repository}</h2>
      <p class="meta">{brief.count} notes about this repository; the most recent first.</p>
      <ul class="items">
        {brief.notes.map((n) => (
          <li key={n.id}>
            <a href={`/notes/${n.id}`} onClick={(e) => onLinkClick(e, `/notes/${n.id}`)}>
              {n.title}
            </a>
            <span class="meta">
              {[n.kind, n.state].filter(Boolean).join(" · ")}
              {n.description ? ` · ${n.description}` : ""}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
