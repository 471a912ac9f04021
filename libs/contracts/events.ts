// Item change events: the types the change stream and webhooks report, and the message the outbox relay publishes.

/** Types written to the item event log (the outbox). */
export const itemEventTypes = [
  "item.created",
  "item.updated",
  "item.deleted",
  "item.tagged",
  "item.untagged",
  "item.collection_added",
  "item.collection_removed",
] as const;
export type ItemEventType = (typeof itemEventTypes)[number];

/** Every type a reader can see: the logged ones, plus the two made for one reader or one endpoint. */
export const eventTypes = [...itemEventTypes, "item.removed_from_scope", "webhook.test"] as const;
export type EventType = (typeof eventTypes)[number];

/** What an item's scope is matched on: key scopes, change-stream filters and webhook resource scopes. */
export interface ItemScope {
  status: string;
  tagSlugs: string[];
  collectionIds: string[];
}

/** One item event as the relay publishes it on the bus (subject `itemEventSubject(type)`, message id = `id`). */
export interface ItemEventMessage {
  id: string;
  /** Position in the account-wide log, increasing in commit order. */
  position: number;
  accountId: string;
  type: ItemEventType;
  itemId: string;
  /** Unix milliseconds. */
  changedAt: number;
  beforeScope: ItemScope | null;
  afterScope: ItemScope | null;
  payload: Record<string, unknown>;
}

/** Bus subject of an item event; consumers filter on `itemEventsFilter`. */
export const itemEventSubject = (type: ItemEventType): string => `items.event.${type}`;
export const itemEventsFilter = "items.event.>";

/** A reader's narrowing: a scoped key, a change-stream filter or a webhook endpoint's resource scope. */
export interface ScopeFilter {
  /** Any of these tags. */
  tagSlugs?: string[];
  collectionId?: string;
}

/** True when an item with this scope is inside the filter (every given part must hold). */
export function scopeMatches(scope: ItemScope | null, filter: ScopeFilter | null): boolean {
  if (scope === null) return false;
  if (!filter) return true;
  if (filter.tagSlugs && filter.tagSlugs.length > 0 && !filter.tagSlugs.some((t) => scope.tagSlugs.includes(t))) return false;
  if (filter.collectionId && !scope.collectionIds.includes(filter.collectionId)) return false;
  return true;
}

/** One filter, several that must all hold (a key's scope and a request's filters), or none. */
export type ScopeFilters = ScopeFilter | readonly ScopeFilter[] | null;

const listOf = (f: ScopeFilters): readonly ScopeFilter[] => (f === null ? [] : Array.isArray(f) ? f : [f as ScopeFilter]);

/** True when an item with this scope passes every filter. */
export function insideScope(scope: ItemScope | null, filters: ScopeFilters): boolean {
  return scope !== null && listOf(filters).every((f) => scopeMatches(scope, f));
}

/**
 * The type one reader sees for a logged event, or null when the event is none of its business: the event itself
 * while the item is in scope after it (or was, for a deletion), `item.removed_from_scope` when the item leaves it.
 */
export function typeForReader(
  type: ItemEventType,
  before: ItemScope | null,
  after: ItemScope | null,
  filters: ScopeFilters,
): ItemEventType | "item.removed_from_scope" | null {
  if (listOf(filters).length === 0) return type;
  const wasIn = insideScope(before, filters);
  if (type === "item.deleted") return wasIn ? type : null;
  if (insideScope(after, filters)) return type;
  return wasIn ? "item.removed_from_scope" : null;
}
