// Shared TypeBox schemas: the single source of request validation, handler types and the OpenAPI document.
import { t, type Static } from "elysia";

export const ErrorBody = t.Object(
  {
    error: t.String({ description: "stable error code" }),
    message: t.Optional(t.String()),
    resolution: t.Optional(t.String()),
    fields: t.Optional(t.Record(t.String(), t.String())),
  },
  { additionalProperties: true },
);

export const Id = t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" });
export const IdParams = t.Object({ id: Id });

export const Timestamp = t.Integer({ description: "Unix seconds" });

export const ItemStatus = t.Union([t.Literal("stashed"), t.Literal("flagged"), t.Literal("archived")]);

export const ItemContent = t.Object({
  schemaVersion: t.Literal(2),
  meta: t.Object({ frontmatter: t.Record(t.String(), t.Unknown()) }, { additionalProperties: true }),
  items: t.Record(
    t.String(),
    t.Object({
      format: t.Literal("markdown"),
      markdown: t.String(),
      meta: t.Optional(t.Record(t.String(), t.Unknown())),
    }),
  ),
  media: t.Array(t.Record(t.String(), t.Unknown())),
});

export const Tag = t.Object({ name: t.String(), slug: t.String(), description: t.Optional(t.String()), itemCount: t.Optional(t.Integer()) });
export const Collection = t.Object({ id: t.String(), name: t.String(), slug: t.String(), itemCount: t.Optional(t.Integer()) });

export const IdList = t.Array(Id, { minItems: 1, maxItems: 1000 });

export const HighlightInput = {
  text: t.String({ minLength: 1, maxLength: 20_000 }),
  prefix: t.Optional(t.String({ maxLength: 2_000 })),
  suffix: t.Optional(t.String({ maxLength: 2_000 })),
  note: t.Optional(t.String({ maxLength: 20_000 })),
  startOffset: t.Optional(t.Integer({ minimum: 0 })),
  endOffset: t.Optional(t.Integer({ minimum: 0 })),
};

export const Highlight = t.Object({
  id: t.String(),
  itemId: t.String(),
  text: t.String(),
  prefix: t.String(),
  suffix: t.String(),
  note: t.String(),
  startOffset: t.Nullable(t.Integer()),
  endOffset: t.Nullable(t.Integer()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const MediaRef = t.Object({
  id: t.String(),
  kind: t.Union([t.Literal("web"), t.Literal("upload")]),
  url: t.String({ description: "source https URL for web captures; the authenticated service URL for uploads" }),
  alt: t.String(),
  title: t.String(),
  width: t.Optional(t.Integer()),
  height: t.Optional(t.Integer()),
  contentType: t.Optional(t.String()),
  size: t.Optional(t.Integer()),
});

export const Item = t.Object({
  id: t.String(),
  url: t.String(),
  urlHash: t.String(),
  title: t.String(),
  favicon: t.String(),
  createdAt: Timestamp,
  lastSeenAt: Timestamp,
  updatedAt: Timestamp,
  status: ItemStatus,
  timesAdded: t.Integer(),
  notes: t.String(),
  tags: t.Array(t.String()),
  tagSlugs: t.Array(t.String()),
  collectionName: t.Nullable(t.String()),
  collectionSlug: t.Nullable(t.String()),
  contentExtractedAt: t.Nullable(Timestamp),
  contentKey: t.Nullable(t.String()),
  contentSize: t.Integer(),
  contentExtractError: t.Nullable(t.String()),
  contentTruncated: t.Boolean(),
  contentSource: t.Nullable(t.String()),
  contentAvailable: t.Boolean(),
  processedAt: t.Nullable(Timestamp),
  contentMarkdown: t.Optional(t.String()),
  content: t.Optional(ItemContent),
  highlights: t.Optional(t.Array(Highlight)),
  collectionIds: t.Array(t.String()),
  source: t.Nullable(t.String()),
});

export const SyncResponse = t.Object({
  received: t.Integer(),
  accepted: t.Integer(),
  upserted: t.Integer(),
  added: t.Integer(),
  skipped: t.Integer(),
  linkLimit: t.Integer(),
  linkCount: t.Integer(),
  linkCountLifetime: t.Integer(),
  linkCountPeriod: t.Integer(),
  linkCountMonth: t.Integer(),
  linkCountMonthKey: t.String(),
  limitReached: t.Boolean(),
});

export const Limit = (max: number, dflt: number) =>
  t.Integer({ minimum: 1, maximum: max, default: dflt, description: `page size, 1-${max}, default ${dflt}` });
export const Offset = t.Integer({ minimum: 0, default: 0 });

/** `since`/`until`: Unix seconds or an ISO date; parsed by the owning service. */
export const TimeFilter = t.String({ minLength: 1, maxLength: 40, description: "Unix seconds or an ISO 8601 date" });

export const ListFilters = {
  since: t.Optional(TimeFilter),
  until: t.Optional(TimeFilter),
  status: t.Optional(t.String({ description: "comma-separated statuses; archived excluded when omitted" })),
  tags: t.Optional(t.String({ description: "comma-separated tag names or slugs" })),
  collection: t.Optional(t.String({ description: "collection id, name or slug" })),
  source: t.Optional(t.String({ maxLength: 2048 })),
  include: t.Optional(t.String({ description: "`content` adds structured content and Markdown" })),
  limit: t.Optional(Limit(1000, 200)),
  offset: t.Optional(Offset),
};

export const HealthReport = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("degraded")]),
  version: t.String(),
  apiVersion: t.String(),
  deployment: t.Union([t.Literal("embedded"), t.Literal("distributed")]),
  database: t.Object({ ok: t.Boolean(), kind: t.String() }),
  bus: t.Object({ ok: t.Boolean(), kind: t.String() }),
  services: t.Record(t.String(), t.Object({ ok: t.Boolean(), database: t.Optional(t.Boolean()) })),
});

export type ItemDto = Static<typeof Item>;
export type HealthReportDto = Static<typeof HealthReport>;

export type TagDto = Static<typeof Tag>;
export type CollectionDto = Static<typeof Collection>;
export type HighlightDto = Static<typeof Highlight>;
export type MediaRefDto = Static<typeof MediaRef>;
export type SyncDto = Static<typeof SyncResponse>;
