// Repository addresses in every spelling people paste (https, .git, ssh, scp-like, bare host/path) reduced to one
// key, `host/owner/name` in lower case, so the same repository always matches itself.

/** The normalised key of a repository address, or null when it names no repository (no host and path). */
export function repositoryKey(address: string): string | null {
  let s = address.trim();
  if (s === "") return null;
  // scp-like ssh: git@github.com:owner/name.git
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(s);
  if (scp && !s.includes("://")) s = `${scp[1]}/${scp[2]}`;
  else s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/^[^@/]+@/, "");
  s = s.split(/[?#]/)[0]!;
  const [hostPort, ...rest] = s.split("/");
  const host = hostPort!.replace(/:\d+$/, "").toLowerCase().replace(/^www\./, "");
  const path = rest
    .filter((p) => p !== "")
    .join("/")
    .replace(/\.git$/i, "")
    .replace(/\/+$/, "")
    .toLowerCase();
  if (!host || !path) return null;
  return `${host}/${path}`;
}
