// Requests one service makes of another over the bus (not HTTP routes): the subjects and their payloads. Each is
// sent with the original caller's header, so the answering service applies that caller's account and scope.

/** Items answers what it knows of some items (and highlights) of the caller: missing or out-of-scope ones are left out. */
export const itemRefsSubject = "items.internal.itemRefs";

export interface ItemRefsRequest {
  itemIds: string[];
  highlightIds?: string[];
  /** Bytes of each item's Markdown to add as `excerpt` (cut on a character boundary); 0 or absent: none. */
  contentBytes?: number;
  /** The item's first highlights to add to each item (0-5). */
  highlightsPerItem?: number;
}

export interface ItemRef {
  id: string;
  title: string;
  url: string;
  status: string;
  tags: string[];
  createdAt: number;
  excerpt?: string;
  contentTruncated?: boolean;
  highlights: HighlightRef[];
}

export interface HighlightRef {
  id: string;
  itemId: string;
  text: string;
  note: string;
}

export interface ItemRefsReply {
  items: ItemRef[];
  highlights: HighlightRef[];
}

/** Notes answers which of the caller's notes link an item (for GET /api/items/:id). */
export const itemNotesSubject = "notes.internal.itemNotes";

export interface ItemNotesRequest {
  itemId: string;
}

export interface ItemNotesReply {
  notes: { id: string; title: string; relation: string; linkId: string }[];
}

/** Published (at least once) by items after a tag is deleted; notes removes it from every note of the account. */
export const tagDeletedSubject = "tag.deleted";

export interface TagDeletedEvent {
  id: string;
  accountId: string;
  slug: string;
  deletedAt: number;
}

/**
 * Items asks notes to apply a tag deletion now, after its commit and before it answers the DELETE, so the next
 * read of a note already shows the tag gone. The payload is the tag.deleted event itself: the same idempotent
 * work its consumer does (either may come first). Sent with the deleting caller's header; the account must match.
 */
export const applyTagDeletionSubject = "notes.internal.applyTagDeletion";

export type ApplyTagDeletionRequest = TagDeletedEvent;

export interface ApplyTagDeletionReply {
  /** Notes that got a revision without the tag in this call (0 when another delivery did the work). */
  notesChanged: number;
}

/**
 * The gateway (which owns accounts) answers the Caller a service acts as for an account when no request carries
 * one: the sources service adding items as the source's owner. A personal, read-write caller with the account's
 * plan; `not_found` when the account is gone.
 */
export const accountCallerSubject = "gateway.internal.accountCaller";

export interface AccountCallerRequest {
  accountId: string;
}
