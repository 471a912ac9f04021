// What notes search shares between its lexical (search.service.ts) and semantic (semantic-search.service.ts) halves
// and the cross-resource search: the indexed size, the modes, and what one found note carries.
import type { SearchSource } from "./notes.repository.ts";

/** Body indexed per note: the first 256K characters (as for item content; a longer log is found by its start,
 * title, tags and paths). Line coordinates are looked for in the same part. */
export const indexedBodyChars = 256 * 1024;

export type SearchModeName = "lexical" | "semantic" | "hybrid";

export type NoteMatchedField = "title" | "tags" | "description" | "repository" | "paths" | "body";

/** One note a search found: its index entry, how it ranked, where it matched. */
export interface NoteFound {
  source: SearchSource;
  revision: number;
  score: number;
  matchedField: NoteMatchedField;
  lines: { ranges: { startLine: number; endLine: number }[]; count: number };
  terms: string[];
  /** A hit by meaning only: its best chunk's text (the snippet). */
  chunkText?: string;
}
