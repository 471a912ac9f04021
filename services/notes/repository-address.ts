// Repository addresses in every spelling people paste (https, .git, ssh, scp-like, bare host/path, a browser URL of a
// page inside the repository) reduced to one key, `host/owner/name` in lower case, so the same repository always
// matches itself.

/** Schemes a repository is cloned or browsed over; anything else (file://, ftp://) names no remote repository. */
const schemes = new Set(["http", "https", "ssh", "git", "git+ssh", "ssh+git", "git+https", "git+http"]);
/** Hosts whose repositories are exactly owner/name: a longer path is a page inside one (/tree/main, /pull/3). */
const twoLevelHosts = new Set(["github.com", "bitbucket.org", "codeberg.org"]);
/** A host name with at least one dot (or localhost); an IPv4 address has dots too. */
const hostName = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+|localhost)$/;

/** The normalised key of a repository address, or null when it names no repository (no host, owner and name). */
export function repositoryKey(address: string): string | null {
  const s = address.trim();
  // Whitespace, backslashes and control characters belong to no remote address (a local Windows path has them).
  if (s === "" || /[\s\\\u0000-\u001f\u007f]/.test(s)) return null;
  let authority: string;
  let path: string;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(s);
  const scp = /^([^/:]+):(?!\/\/)(.*)$/.exec(s);
  if (scheme) {
    if (!schemes.has(scheme[1]!.toLowerCase())) return null;
    const rest = scheme[2]!;
    const slash = rest.indexOf("/");
    authority = slash < 0 ? rest : rest.slice(0, slash);
    path = slash < 0 ? "" : rest.slice(slash);
  } else if (scp) {
    // scp-like ssh (git@github.com:owner/name.git): a colon before any slash; what follows is the path, as git reads it.
    authority = scp[1]!;
    path = scp[2]!;
  } else {
    const slash = s.indexOf("/");
    if (slash < 0) return null;
    authority = s.slice(0, slash);
    path = s.slice(slash);
  }
  const host = authority
    .slice(authority.lastIndexOf("@") + 1)
    .replace(/:\d*$/, "")
    .toLowerCase()
    .replace(/^www\./, "");
  if (!hostName.test(host)) return null;

  let segments = path.split(/[?#]/)[0]!.split("/").filter((p) => p !== "");
  if (segments.some((p) => p === "." || p === "..")) return null;
  // GitLab (and its kin) put "/-/" between a repository and its pages: /group/sub/project/-/tree/main.
  const dash = segments.indexOf("-");
  if (dash >= 0) segments = segments.slice(0, dash);
  if (twoLevelHosts.has(host)) segments = segments.slice(0, 2);
  if (segments.length > 0) segments[segments.length - 1] = segments.at(-1)!.replace(/\.git$/i, "");
  segments = segments.filter((p) => p !== "");
  if (segments.length < 2) return null;
  return `${host}/${segments.join("/").toLowerCase()}`;
}
