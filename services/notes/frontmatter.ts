// A note as one Markdown document: YAML frontmatter (its identity, revision, times and metadata) then the body.
// Used by GET /api/notes/:id with Accept: text/markdown and by the notes export, so both read the same.

export interface FrontmatterNote {
  id: string;
  title: string;
  currentRevision: number;
  kind: string | null;
  state: string | null;
  project: string | null;
  repository: string | null;
  paths: string[];
  tags: string[];
  properties: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  archivedAt: number | null;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The frontmatter block, `---` lines included. Times are ISO 8601 (UTC); empty fields are left out. */
export async function frontmatter(n: FrontmatterNote): Promise<string> {
  // Imported on the first use: a process that never writes a note as Markdown never loads the YAML library.
  const { stringify } = await import("yaml");
  const data: Record<string, unknown> = { id: n.id, title: n.title, revision: n.currentRevision, created: iso(n.createdAt), updated: iso(n.updatedAt) };
  if (n.archivedAt !== null) Object.assign(data, { archived: true, archivedAt: iso(n.archivedAt) });
  if (n.kind !== null) data.kind = n.kind;
  if (n.state !== null) data.state = n.state;
  if (n.project !== null) data.project = n.project;
  if (n.repository !== null) data.repository = n.repository;
  if (n.paths.length > 0) data.paths = n.paths;
  if (n.tags.length > 0) data.tags = n.tags;
  if (Object.keys(n.properties).length > 0) data.properties = n.properties;
  return `---\n${stringify(data, { lineWidth: 0 })}---\n`;
}

export const markdownDocument = async (n: FrontmatterNote, body: string): Promise<string> => `${await frontmatter(n)}\n${body}`;
