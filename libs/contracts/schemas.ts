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

/** Largest PostgreSQL `integer` (int4): offsets, positions and sizes stored in int4 columns stay within it. */
export const maxInt4 = 2_147_483_647;
/** Largest integer JavaScript holds exactly; int8 columns (timestamps, counts) are read back as numbers below it. */
export const maxInt53 = Number.MAX_SAFE_INTEGER;

/** A non-negative integer an int4 column holds. */
export const Int4 = (o: { description?: string; default?: number } = {}) => t.Integer({ minimum: 0, maximum: maxInt4, ...o });
/** A count (or size) of things: non-negative, exact in JavaScript. */
export const Count = (o: { description?: string } = {}) => t.Integer({ minimum: 0, maximum: maxInt53, ...o });

/**
 * Marks a string schema as page text the user captured (the HTML of a page): it may hold NUL characters and
 * lone surrogates, which the extraction cleans as it does for fetched pages. Every other API string holding one
 * answers 400 validation_failed (the gateway's text guard).
 */
export const pageTextMark = "x-trove-page-text";
export const PageText = (o: { description?: string } = {}) => t.String({ ...o, [pageTextMark]: true });

export const Id = t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" });
export const IdParams = t.Object({ id: Id });

export const Timestamp = t.Integer({ minimum: 0, maximum: maxInt53, description: "Unix seconds" });

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

export const Tag = t.Object({ name: t.String(), slug: t.String(), description: t.Optional(t.String()), itemCount: t.Optional(Count()) });
export const Collection = t.Object({ id: t.String(), name: t.String(), slug: t.String(), itemCount: t.Optional(Count()) });

export const IdList = t.Array(Id, { minItems: 1, maxItems: 1000 });

export const HighlightInput = {
  text: t.String({ minLength: 1, maxLength: 20_000 }),
  prefix: t.Optional(t.String({ maxLength: 2_000 })),
  suffix: t.Optional(t.String({ maxLength: 2_000 })),
  note: t.Optional(t.String({ maxLength: 20_000 })),
  startOffset: t.Optional(Int4({ description: "UTF-16 offset into the item's Markdown" })),
  endOffset: t.Optional(Int4({ description: "UTF-16 offset into the item's Markdown, exclusive" })),
};

export const Highlight = t.Object({
  id: t.String(),
  itemId: t.String(),
  text: t.String(),
  prefix: t.String(),
  suffix: t.String(),
  note: t.String(),
  startOffset: t.Nullable(Int4()),
  endOffset: t.Nullable(Int4()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const MediaRef = t.Object({
  id: t.String(),
  kind: t.Union([t.Literal("web"), t.Literal("upload")]),
  url: t.String({ description: "source https URL for web captures; the authenticated service URL for uploads" }),
  alt: t.String(),
  title: t.String(),
  width: t.Optional(Int4()),
  height: t.Optional(Int4()),
  contentType: t.Optional(t.String()),
  size: t.Optional(Int4()),
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
  timesAdded: Int4(),
  notes: t.String(),
  tags: t.Array(t.String()),
  tagSlugs: t.Array(t.String()),
  collectionName: t.Nullable(t.String()),
  collectionSlug: t.Nullable(t.String()),
  contentExtractedAt: t.Nullable(Timestamp),
  contentKey: t.Nullable(t.String()),
  contentSize: Int4(),
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
  connectedNotes: t.Optional(
    t.Array(t.Object({ id: t.String(), title: t.String(), relation: t.String(), linkId: t.String() }), {
      description: "single item reads only, for keys holding notes.read: the notes that link this item",
    }),
  ),
});

export const SyncResponse = t.Object({
  received: Count(),
  accepted: Count(),
  upserted: Count(),
  added: Count(),
  skipped: Count(),
  linkLimit: Count(),
  linkCount: Count(),
  linkCountLifetime: Count(),
  linkCountPeriod: Count(),
  linkCountMonth: Count(),
  linkCountMonthKey: t.String(),
  limitReached: t.Boolean(),
});

export const Limit = (max: number, dflt: number) =>
  t.Integer({ minimum: 1, maximum: max, default: dflt, description: `page size, 1-${max}, default ${dflt}` });
export const Offset = Int4({ default: 0, description: "items to skip, 0-2147483647" });

/** `since`/`until`: Unix seconds or an ISO date; parsed by the owning service. */
export const TimeFilter = t.String({ minLength: 1, maxLength: 40, description: "Unix seconds or an ISO 8601 date" });

export const ListFilters = {
  since: t.Optional(TimeFilter),
  until: t.Optional(TimeFilter),
  status: t.Optional(t.String({ maxLength: 200, description: "comma-separated statuses; archived excluded when omitted" })),
  tags: t.Optional(t.String({ maxLength: 4096, description: "comma-separated tag names or slugs" })),
  collection: t.Optional(t.String({ maxLength: 200, description: "collection id, name or slug" })),
  source: t.Optional(t.String({ maxLength: 2048 })),
  include: t.Optional(t.Literal("content", { description: "`content` adds structured content and Markdown" })),
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
  vectors: t.Object(
    { backend: t.Union([t.Literal("pgvector"), t.Literal("usearch-exact"), t.Literal("off")]) },
    { description: "semantic search's vector backend: pgvector, the in-memory fallback (usearch-exact) where the database has no pgvector, or off (TROVE_SEMANTIC=off)" },
  ),
  services: t.Record(
    t.String(),
    t.Object({
      ok: t.Boolean(),
      database: t.Optional(t.Boolean()),
      queue: t.Optional(
        t.Object(
          {
            queued: Count({ description: "jobs waiting, due or not" }),
            due: Count({ description: "jobs waiting and due now (a paused group's are held, not due)" }),
            running: Count({ description: "jobs claimed by a worker" }),
            leaseExpired: Count({ description: "claimed jobs whose worker stopped renewing its lease (died or lost the database): taken over by another" }),
            failed: Count({ description: "jobs failed for good in the last 30 days" }),
          },
          { description: "the service's work queue (background captures, webhook deliveries, exports and imports, source polls, mail)" },
        ),
      ),
      events: t.Optional(
        t.Object({ lag: Count({ description: "events recorded but not yet acknowledged by this service's consumers" }) }, { description: "the service's event consumers" }),
      ),
    }),
  ),
});

export type ItemDto = Static<typeof Item>;
export type HealthReportDto = Static<typeof HealthReport>;

export type TagDto = Static<typeof Tag>;
export type CollectionDto = Static<typeof Collection>;
export type HighlightDto = Static<typeof Highlight>;
export type MediaRefDto = Static<typeof MediaRef>;
export type SyncDto = Static<typeof SyncResponse>;
