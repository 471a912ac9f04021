// Bus subject -> handler for every operation the contract gives the items service.
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { HandlerTable } from "@trove/host";
import type { ChangesService } from "./changes.service.ts";
import type { CollectionsService } from "./collections.service.ts";
import type { HighlightsService } from "./highlights.service.ts";
import type { IngestService } from "./ingest.service.ts";
import type { ItemsService } from "./items.service.ts";
import type { MediaService } from "./media.service.ts";
import type { SearchService } from "./search.service.ts";
import type { TagsService } from "./tags.service.ts";
import type { UsageService } from "./usage.service.ts";

export interface ItemsDomain {
  items: ItemsService;
  ingest: IngestService;
  tags: TagsService;
  collections: CollectionsService;
  highlights: HighlightsService;
  media: MediaService;
  usage: UsageService;
  changes: ChangesService;
  search: SearchService;
}

const who = (c: Caller | null): Caller => {
  if (!c) throw new AppError("unauthorized", "no caller");
  return c;
};

export const itemsEndpoints = (d: ItemsDomain): HandlerTable<"items"> => ({
  ping: () => ({ ok: true, service: "items", time: Date.now() }),
  me: (_, ctx) => d.usage.usage(who(ctx.caller)),
  stats: ({ query }, ctx) => d.items.stats(who(ctx.caller), query),
  ingest: ({ body }, ctx) => d.ingest.ingest(who(ctx.caller), body),
  listItems: ({ query }, ctx) => d.items.list(who(ctx.caller), query, query.include === "content"),
  searchItems: ({ query }, ctx) => d.search.search(who(ctx.caller), query),
  feed: ({ query }, ctx) => d.items.feed(who(ctx.caller), query),
  getItem: ({ params }, ctx) => d.items.get(who(ctx.caller), params.id, ctx.requestId),
  updateItem: ({ params, body }, ctx) => d.items.update(who(ctx.caller), params.id, body),
  archiveItems: ({ body }, ctx) => d.items.archive(who(ctx.caller), body.ids),
  markProcessed: ({ body }, ctx) => d.items.markProcessed(who(ctx.caller), body.ids),
  deleteItems: ({ body }, ctx) => d.items.delete(who(ctx.caller), body.ids),
  itemContent: ({ params }, ctx) => d.items.content(who(ctx.caller), params.id),
  readItem: ({ params, query }, ctx) => d.items.read(who(ctx.caller), params.id, query),
  listMedia: ({ params, query }, ctx) => d.media.list(who(ctx.caller), params.id, query.limit ?? 20, query.offset ?? 0),
  uploadMedia: ({ params, body }, ctx) => d.media.upload(who(ctx.caller), params.id, body),
  getMedia: ({ params }, ctx) => d.media.get(who(ctx.caller), params.id, params.mediaId),
  listHighlights: ({ params, query }, ctx) => d.highlights.list(who(ctx.caller), params.id, query.limit ?? 25, query.offset ?? 0),
  createHighlight: ({ params, body }, ctx) => d.highlights.create(who(ctx.caller), params.id, body),
  getHighlight: ({ params }, ctx) => d.highlights.get(who(ctx.caller), params.id),
  updateHighlight: ({ params, body }, ctx) => d.highlights.update(who(ctx.caller), params.id, body),
  deleteHighlight: ({ params }, ctx) => d.highlights.delete(who(ctx.caller), params.id),
  listTags: (_, ctx) => d.tags.list(who(ctx.caller)),
  createTag: ({ body }, ctx) => d.tags.create(who(ctx.caller), body),
  updateTag: ({ params, body }, ctx) => d.tags.update(who(ctx.caller), params.slug, body),
  deleteTag: ({ params }, ctx) => d.tags.delete(who(ctx.caller), params.slug, ctx.requestId),
  listCollections: (_, ctx) => d.collections.list(who(ctx.caller)),
  createCollection: ({ body }, ctx) => d.collections.create(who(ctx.caller), body.name),
  itemChanges: ({ query }, ctx) => d.changes.changes(who(ctx.caller), query),
});
