// The shapes the notes screens share: a note as the API returns it, its item links, the editor's draft and a conflict.
// Kept apart so the list, the editor, the conflict screen and the linked items agree without importing each other.

export const relations = ["source", "evidence", "example", "inspiration", "annotation"] as const;
export type Relation = (typeof relations)[number];

export interface ItemLink {
  id: string;
  itemId: string;
  highlightId: string | null;
  relation: Relation;
  annotation: string;
}

export interface Note {
  id: string;
  title: string;
  bodyMarkdown: string;
  currentRevision: number;
  updatedAt: number;
  tags: string[];
  kind: string | null;
  state: string | null;
  project: string | null;
  archived: boolean;
  itemLinks: ItemLink[];
}

export interface Project {
  id: string;
  name: string;
}

/** What the editor holds: the text fields as typed. */
export interface Draft {
  title: string;
  body: string;
  tags: string;
  kind: string;
  state: string;
  project: string;
}

/** A save refused because someone else saved first: their note as it is now, and my draft. */
export interface Conflict {
  theirs: Note;
  mine: Draft;
}
