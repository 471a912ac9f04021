// The change stream: GET /api/items/changes (see events.ts for the event types).
import { t } from "elysia";
import { eventTypes } from "./events.ts";
import { op } from "./operation.ts";
import { Count, Item, Limit, ListFilters, TimeFilter } from "./schemas.ts";

const Scope = t.Nullable(
  t.Object({ status: t.String(), tagSlugs: t.Array(t.String()), collectionIds: t.Array(t.String()) }, { description: "the item's status, tags and collections; null before creation and after deletion" }),
);

export const ChangeEvent = t.Object({
  id: t.String({ description: "event id (also a webhook delivery's data.eventId)" }),
  type: t.Union(eventTypes.filter((e) => e !== "webhook.test").map((e) => t.Literal(e))),
  changedAt: Count({ description: "Unix milliseconds" }),
  itemId: t.String(),
  beforeScope: Scope,
  afterScope: Scope,
  payload: t.Record(t.String(), t.Unknown(), { description: "changedFields, tagSlugsAdded/Removed, collectionIdsAdded/Removed by type" }),
  item: t.Optional(Item),
});

export const changesOperations = {
  itemChanges: op({
    method: "GET",
    path: "/api/items/changes",
    service: "items",
    permission: "changes.read",
    tag: "Changes",
    summary: "Item changes since a cursor, oldest first (personal keys)",
    query: t.Object({
      cursor: t.Optional(t.String({ minLength: 1, maxLength: 512, description: "the nextCursor of the previous page" })),
      updated_since: t.Optional(TimeFilter),
      tags: ListFilters.tags,
      collection: ListFilters.collection,
      limit: t.Optional(Limit(1000, 200)),
      include: ListFilters.include,
    }),
    response: t.Object({
      events: t.Array(ChangeEvent),
      nextCursor: t.String({ description: "pass as cursor for the next page; also when hasMore is false, to poll for new changes" }),
      hasMore: t.Boolean(),
      limit: Count(),
    }),
  }),
} as const;
