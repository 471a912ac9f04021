// Note events: one per revision, recorded in the event log in the unit of work that writes the revision, so it
// exists exactly when the revision does. Consumers (the search index, the vectors) read them from the log.
import { noteEventSubject, noteEventTypeOf, type NoteEventMessage } from "@trove/contracts";
import { newId, type UnitOfWork } from "@trove/db";
import type { EventInput, Events } from "@trove/eventlog";

/** The notes' stream in the log. */
export const noteStream = "notes";

/** What a revision announces. */
export interface RevisionMade {
  noteId: string;
  revision: number;
  operation: string;
}

/** The log record of one revision's event: its message is `NoteEventMessage` (the log adds `position`). */
export function noteEventOf(accountId: string, r: RevisionMade, now = Date.now()): EventInput {
  const type = noteEventTypeOf(r.operation);
  const message: NoteEventMessage = { id: newId(), accountId, type, noteId: r.noteId, revision: r.revision, operation: r.operation, changedAt: now };
  return { id: message.id, stream: noteStream, subject: noteEventSubject(type), accountId, key: r.noteId, at: now, data: { ...message } };
}

export class NoteEvents {
  constructor(private readonly events: Pick<Events, "record">) {}

  /** Records the revision's event in the unit of work that writes the revision. */
  async revisionMade(uow: UnitOfWork, accountId: string, r: RevisionMade): Promise<void> {
    await this.events.record(uow, noteEventOf(accountId, r));
  }
}
