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
