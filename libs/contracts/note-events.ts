// Note events: one per note revision, recorded in the event log with the write and handed to consumers after it
// commits, for consumers that keep something in step with notes (the search index, the vectors). Not a change
// stream: no public API reads them.

export const noteEventTypes = ["note.created", "note.updated", "note.archived", "note.restored"] as const;
export type NoteEventType = (typeof noteEventTypes)[number];

export interface NoteEventMessage {
  id: string;
  accountId: string;
  type: NoteEventType;
  noteId: string;
  /** The revision the write made. */
  revision: number;
  /** The write's operation (create, replace, metadata, append, archive, restore, revision_restore). */
  operation: string;
  /** Unix milliseconds. */
  changedAt: number;
}

/** Bus subject of a note event; consumers filter on `noteEventsFilter`. */
export const noteEventSubject = (type: NoteEventType): string => `notes.event.${type}`;
export const noteEventsFilter = "notes.event.>";

/** The event type of a note write. */
export const noteEventTypeOf = (operation: string): NoteEventType =>
  operation === "create" ? "note.created" : operation === "archive" ? "note.archived" : operation === "restore" ? "note.restored" : "note.updated";
