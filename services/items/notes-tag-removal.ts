// A deleted tag leaves notes before DELETE /api/tags/:slug answers: items asks the notes service to apply the
// deletion it just committed, so the next read of a note already shows the tag gone. The tag.deleted event stays
// the durable path: when no notes replica answers, the deletion still stands and notes applies it when it is back.
import type { Bus } from "@trove/bus";
import { applyTagDeletionSubject, type ApplyTagDeletionReply, type ApplyTagDeletionRequest, type Caller, type TagDeletedEvent } from "@trove/contracts";
import { AppError } from "@trove/errors";
import { callerHeaders } from "@trove/host";
import type { Logger } from "@trove/log";

/** Left of the caller's deadline for items' own answer, so a timeout is told by items, not by the gateway. */
const answerMarginMs = 5_000;

export class NotesTagRemoval {
  private readonly timeoutMs: number;

  /** `deadlineMs`: how long the gateway waits for the DELETE's answer. */
  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    deadlineMs: number,
  ) {
    this.timeoutMs = Math.max(1_000, deadlineMs - answerMarginMs);
  }

  /**
   * Has notes remove the tag now; answers how many notes changed, or undefined when no notes service answered (the
   * event does it later). A timeout or an error of the notes service is thrown: whether notes changed is unknown.
   */
  async apply(caller: Caller, event: TagDeletedEvent, requestId?: string): Promise<number | undefined> {
    const request: ApplyTagDeletionRequest = event;
    try {
      const reply = (await this.bus.request(applyTagDeletionSubject, request, { timeoutMs: this.timeoutMs, headers: callerHeaders(caller, requestId) })) as ApplyTagDeletionReply;
      return reply.notesChanged;
    } catch (err) {
      if (!(err instanceof AppError && err.code === "service_unavailable")) throw err;
      this.log.warn({ err, eventId: event.id, slug: event.slug, reqId: requestId }, "notes service did not answer: the deleted tag leaves notes when it is back");
      return undefined;
    }
  }
}
