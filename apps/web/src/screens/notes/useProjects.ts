// The projects a note can belong to, for the list's project filter and the editor's project field.
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { Project } from "./types.ts";

export function useProjects(): Project[] {
  const [projects, setProjects] = useState<Project[]>([]);
  useEffect(() => {
    api<{ projects: Project[] }>("GET", "/api/projects?limit=100").then((r) => setProjects(r.projects), () => {});
  }, []);
  return projects;
}
