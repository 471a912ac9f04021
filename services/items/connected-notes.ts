// The notes connected to an item, for GET /api/items/:id: asked of the notes service over the bus, only for
// callers holding notes.read. The item read never fails because of it: when notes does not answer in time the
// item answers without connectedNotes (and a warning is logged).
import type { Bus } from "@trove/bus";
import { holds, itemNotesSubject, type Caller, type ItemNotesReply, type ItemNotesRequest } from "@trove/contracts";
import { callerHeaders } from "@trove/host";
import type { Logger } from "@trove/log";

/** How long an item read waits for the notes service. */
export const connectedNotesTimeoutMs = 2_000;

export type ConnectedNote = ItemNotesReply["notes"][number];

export class ConnectedNotes {
  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly timeoutMs = connectedNotesTimeoutMs,
  ) {}

  /** The notes linking the item; undefined when the caller may not see notes or the notes service did not answer. */
  async of(caller: Caller, itemId: string, requestId?: string): Promise<ConnectedNote[] | undefined> {
    if (!holds(caller, "notes.read", "GET")) return undefined;
    const request: ItemNotesRequest = { itemId };
    try {
      const reply = (await this.bus.request(itemNotesSubject, request, { timeoutMs: this.timeoutMs, headers: callerHeaders(caller, requestId) })) as ItemNotesReply;
      return reply.notes;
    } catch (err) {
      this.log.warn({ err, itemId, reqId: requestId }, "notes service did not answer: item read without connectedNotes");
      return undefined;
    }
  }
}
