// How closely a note's paths match a repository path, 0-1 (the best of its paths): the path itself 1; a path inside
// the requested folder 0.75; a folder holding the path from 0.7 (its own folder) down towards 0.2 (the top
// folder), by how many of the path's folders it spans; anything else 0. A trailing slash does not matter. The
// context brief computes the same score in SQL (brief.repository.ts), to rank a whole project without reading it.
export function pathAffinity(paths: string[], path: string): number {
  const want = path.replace(/\/+$/, "");
  const folders = Math.max(1, want.split("/").length - 1);
  let best = 0;
  for (const raw of paths) {
    const p = raw.replace(/\/+$/, "");
    let score = 0;
    if (p === want) score = 1;
    else if (p.startsWith(`${want}/`)) score = 0.75;
    else if (p !== "" && want.startsWith(`${p}/`)) score = 0.2 + (0.5 * p.split("/").length) / folders;
    best = Math.max(best, score);
  }
  return best;
}
