// The projects a note can belong to, as a select's options; a project id the list does not hold (archived, or
// another's) is kept as its own option so the select still shows what is set.
import type { Project } from "./types.ts";

export function ProjectOptions({ projects, current }: { projects: Project[]; current: string }) {
  return (
    <>
      {current && !projects.some((p) => p.id === current) && <option value={current}>{current}</option>}
      {projects.map((p) => (
        <option key={p.id} value={p.id}>
          {p.name}
        </option>
      ))}
    </>
  );
}
