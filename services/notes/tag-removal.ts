// Deleting a tag (items API) removes it from notes too, by two paths doing the same work: items asks for it before
// it answers the DELETE (so the next read sees it), and the tag.deleted event is consumed durably (so a notes
// service that was down, or a request that failed, catches up). Each note that carried the tag when it was deleted
// gets a `metadata` revision (metadataDiff.tagsRemoved), made under the note's row lock like any other write, so
// history stays true; a note given the tag again afterwards keeps it. At least once and idempotent: the revision's
// clientRequestId is derived from the event, so whichever path comes second writes nothing new.
import { tagDeletedSubject, type ApplyTagDeletionReply, type Caller, type TagDeletedEvent } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { Logger } from "@trove/log";
import type { NoteTagsRepository } from "./note-tags.repository.ts";
import type { NotesService } from "./notes.service.ts";

/** The durable consumer of tag.deleted (a position in the event log); it keeps its place across restarts. */
export const tagConsumerName = "notes-tags";
export const tagConsumerFilter = tagDeletedSubject;

/** Notes looked up per query: an account with many tagged notes is walked in pages, one short lock per note. */
const page = 100;
/** Tries per note when other writers keep moving it on (each try re-reads the note). */
const maxTries = 50;

export class TagRemoval {
  constructor(
    private readonly notes: NotesService,
    private readonly repo: NoteTagsRepository,
    private readonly log: Logger,
  ) {}

  /** The consumer's handler: a delivered tag.deleted event. */
  async handle(data: unknown): Promise<void> {
    const event = tagDeletionOf(data);
    if (!event) {
      // Redelivering a malformed event would not make it readable.
      this.log.warn({ event: data }, "tag.deleted event without id, accountId or slug: ignored");
      return;
    }
    await this.apply(event, "event");
  }

  /** Removes the tag from every note that carried it when it was deleted; `via` names the path, for the log. */
  async apply(event: TagDeletedEvent, via: "event" | "request", reqId?: string): Promise<ApplyTagDeletionReply> {
    let removed = 0;
    // Keyset pages by id: a note whose write is replayed (it still carries a tag given back later) is passed, not
    // found again and again.
    for (let after = ""; ; ) {
      const ids = await this.repo.notesWithTag(event.accountId, event.slug, Math.floor(event.deletedAt / 1000), after, page);
      for (const id of ids) if (await this.removeFrom(event, id)) removed++;
      if (ids.length < page) break;
      after = ids.at(-1)!;
    }
    // One line per delivery (deletions are rare): what it changed, 0 when another delivery had done the work.
    this.log.info({ eventId: event.id, slug: event.slug, account: event.accountId, notesChanged: removed, via, ...(reqId ? { reqId } : {}) }, "tag.deleted handled");
    return { notesChanged: removed };
  }

  /** One metadata revision without the tag; true when one was written. */
  private async removeFrom(e: TagDeletedEvent, noteId: string): Promise<boolean> {
    const caller = systemCaller(e.accountId);
    for (let tries = 1; ; tries++) {
      const note = await this.notes.require(e.accountId, noteId);
      if (!note.tags.includes(e.slug)) return false;
      try {
        const receipt = await this.notes.update(caller, noteId, {
          expectedRevision: note.current_revision,
          tags: note.tags.filter((s) => s !== e.slug),
          clientRequestId: `tag.deleted:${e.id}`,
        });
        return receipt.metadataDiff.tagsRemoved.includes(e.slug) && receipt.note.currentRevision > note.current_revision;
      } catch (err) {
        // Another write came between the read and the lock: read again (the revision pin keeps its tags).
        if (err instanceof AppError && err.code === "revision_conflict" && tries < maxTries) continue;
        throw err;
      }
    }
  }
}

/** The event when it is readable (id, account and slug present); a missing deletedAt reads as now. */
export function tagDeletionOf(data: unknown): TagDeletedEvent | undefined {
  const e = data as Partial<TagDeletedEvent> | null;
  if (typeof e?.id !== "string" || typeof e.accountId !== "string" || typeof e.slug !== "string" || e.slug === "") return undefined;
  return { id: e.id, accountId: e.accountId, slug: e.slug, deletedAt: typeof e.deletedAt === "number" ? e.deletedAt : Date.now() };
}

/** The account itself, acting through the items API's tag deletion (only accountId is used by note writes). */
function systemCaller(accountId: string): Caller {
  return {
    accountId,
    keyId: "tag.deleted",
    keyKind: "personal",
    access: "read_write",
    scope: null,
    plan: { name: "system", linkLimit: 0, limitScope: "lifetime" },
  };
}
