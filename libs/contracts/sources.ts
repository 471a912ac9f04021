// Sources (the sources service): feeds, channels, article streams and inboxes that add items on their own.
// Decisions behind these shapes: docs/decisions.md, "Sources".
import { t } from "elysia";
import { op } from "./operation.ts";
import { Count, Id, IdParams, Int4, Limit, Offset, Timestamp } from "./schemas.ts";

export const sourceTypes = ["rss", "youtube_channel", "x_articles", "email_inbox"] as const;
export type SourceType = (typeof sourceTypes)[number];

// Unions of literals, not t.UnionEnum: Elysia gives an enum its first value as a default.
const SourceTypeSchema = t.Union(sourceTypes.map((s) => t.Literal(s)));
const SourceStatus = t.Union([t.Literal("syncing"), t.Literal("paused")], {
  description: "syncing: polled every pollEveryMin (an email inbox takes mail); paused: nothing is added",
});
const BackfillMode = t.Union([t.Literal("from_now"), t.Literal("days"), t.Literal("articles")], {
  description: "what the first run imports: nothing older than now, the last backfillDays days, or the newest backfillItems entries",
});

/** Minutes between polls; at least 1, at most 30 days. */
export const maxPollEveryMin = 43_200;
const PollEveryMin = t.Integer({ minimum: 1, maximum: maxPollEveryMin, description: "minutes between polls (1-43200; default 60)" });
const TagName = t.String({ minLength: 1, maxLength: 100 });
const DefaultTags = t.Array(TagName, { maxItems: 20, description: "tag names added to every new item of the source" });

export const smartTagFields = ["title", "url", "author", "content", "any"] as const;
const SmartTagRule = t.Object(
  {
    field: t.Union(smartTagFields.map((f) => t.Literal(f)), { description: "where to look; any = title, URL, author or content" }),
    contains: t.String({ minLength: 1, maxLength: 200, description: "text that must occur (case and accents ignored)" }),
    tags: t.Array(TagName, { minItems: 1, maxItems: 10, description: "tag names added when it occurs" }),
  },
  { additionalProperties: false },
);
const SmartTagRules = t.Array(SmartTagRule, { maxItems: 50, description: "every matching rule adds its tags to a new item" });

/** Settings a create, POST /settings and the two shortcut routes change. */
const settingFields = {
  name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  pollEveryMin: t.Optional(PollEveryMin),
  defaultTags: t.Optional(DefaultTags),
  smartTagRules: t.Optional(SmartTagRules),
  expandFullContent: t.Optional(t.Boolean({ description: "fetch and extract each entry's page instead of keeping the feed's text" })),
  autoSummarize: t.Optional(t.Boolean({ description: "store an extractive summary (computed offline) with each new item" })),
  rollupEnabled: t.Optional(t.Boolean({ description: "one digest item per run instead of one item per entry" })),
};

export const SourceSettings = t.Object({
  defaultTags: t.Array(t.String()),
  smartTagRules: SmartTagRules,
  expandFullContent: t.Boolean(),
  autoSummarize: t.Boolean(),
  rollupEnabled: t.Boolean(),
});

export const Source = t.Object(
  {
    id: t.String(),
    type: SourceTypeSchema,
    name: t.String(),
    status: SourceStatus,
    pollEveryMin: Int4(),
    nextPollAt: t.Nullable(Timestamp),
    lastRunAt: t.Nullable(Timestamp),
    lastSuccessAt: t.Nullable(Timestamp),
    lastError: t.Nullable(t.String({ description: "why the last run failed, or why the source cannot run; null after a success" })),
    consecutiveFailures: Int4({ description: "failed runs in a row; polls back off while it grows" }),
    target: t.String({ description: "what is followed, normalised: the feed URL, channel id, X username or inbox address" }),
    inboxAddress: t.Nullable(t.String({ description: "email_inbox: where to send mail" })),
    itemCount: Count({ description: "items this source added" }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    settings: t.Optional(SourceSettings),
    config: t.Optional(
      t.Record(t.String(), t.Unknown(), {
        description: "include=settings: what the source was created with, credentials masked; include=sensitive: as stored",
      }),
    ),
    cursors: t.Optional(
      t.Record(t.String(), t.Unknown(), { description: "include=sensitive: the poller's state (validators, last entry seen)" }),
    ),
  },
  { additionalProperties: true },
);

const Include = t.Optional(
  t.Union([t.Literal("settings"), t.Literal("sensitive")], {
    description: "none: the status manifest; settings: adds settings and masked config (not for read-only keys); sensitive: full config and cursors (personal key)",
  }),
);

export const SourceEvent = t.Object({
  id: t.String(),
  type: t.String({ description: "created, run, error, paused, resumed, settings_changed, message (mail taken in)" }),
  at: Timestamp,
  itemsAdded: Int4(),
  message: t.Nullable(t.String()),
  detail: t.Record(t.String(), t.Unknown(), {
    description: "run and error: entriesSeen and replica (the sources replica that ran it); run: notModified, skipped; error: consecutiveFailures",
  }),
});

export const sourceMessageStatuses = ["added", "duplicate", "failed"] as const;

export const SourceMessage = t.Object({
  id: t.String(),
  from: t.String({ description: "the sender's address (From header, else the envelope sender)" }),
  subject: t.String(),
  messageId: t.Nullable(t.String({ description: "the Message-ID header; null when the mail had none" })),
  receivedAt: Timestamp,
  size: Count({ description: "bytes of the message as received" }),
  itemId: t.Nullable(t.String({ description: "the item the mail became (or, for a duplicate, the one it already is)" })),
  status: t.Union(sourceMessageStatuses.map((s) => t.Literal(s)), {
    description: "added: an item was saved; duplicate: a Message-ID this inbox had already taken; failed: see error",
  }),
  error: t.Nullable(t.String()),
});

export const SourceConfirmation = t.Object({
  code: t.Nullable(t.String({ description: "a verification code found in the mail (e.g. Gmail forwarding's \"Confirmation code\")" })),
  link: t.Nullable(t.String({ description: "a confirmation or verification link found in the mail" })),
  from: t.String(),
  subject: t.String(),
  receivedAt: Timestamp,
});

const SourceReply = t.Object({ source: Source });

const InitialRun = t.Object(
  {
    status: t.Union([t.Literal("ok"), t.Literal("failed")]),
    itemsAdded: Int4({ description: "items the first poll added (by the backfill settings)" }),
    entriesSeen: Int4({ description: "entries the feed held" }),
    error: t.Optional(t.String({ description: "why it failed; also the source's lastError" })),
  },
  { description: "the first poll, run before the answer (an inbox has none); a failed one still creates the source" },
);

/** Largest OPML document an import takes, and most feeds in it. */
export const opmlLimits = { maxBytes: 1024 * 1024, maxFeeds: 1000 } as const;
const OpmlText = t.String({ minLength: 1, maxLength: opmlLimits.maxBytes, description: "an OPML 1.0 or 2.0 document" });

export const sourceOperations = {
  listSources: op({
    method: "GET",
    path: "/api/sources",
    service: "sources",
    permission: "sources.read",
    tag: "Sources",
    summary:
      "The account's sources, newest first: a compact status manifest unless include asks for more. The tool interface's list_sources (MCP) always answers this safe manifest and cannot ask for include=sensitive",
    query: t.Object({
      include: Include,
      type: t.Optional(SourceTypeSchema),
      limit: t.Optional(Limit(1000, 200)),
      offset: t.Optional(Offset),
    }),
    response: t.Object({ sources: t.Array(Source), limit: Int4(), offset: Int4(), count: Count() }),
  }),
  getSource: op({
    method: "GET",
    path: "/api/sources/:id",
    service: "sources",
    permission: "sources.read",
    tag: "Sources",
    summary: "One source (the manifest unless include asks for more)",
    params: IdParams,
    query: t.Object({ include: Include }),
    response: SourceReply,
  }),
  createSource: op({
    method: "POST",
    path: "/api/sources",
    service: "sources",
    permission: "sources.write",
    tag: "Sources",
    summary: "Create a source; an equal existing one (same type and target) is answered with existing: true",
    body: t.Object({
      type: SourceTypeSchema,
      feedUrl: t.Optional(t.String({ minLength: 1, maxLength: 2048, description: "rss: the feed's address" })),
      input: t.Optional(t.String({ minLength: 1, maxLength: 2048, description: "rss: a site's address, its feed discovered" })),
      backfillMode: t.Optional(BackfillMode),
      backfillDays: t.Optional(t.Integer({ minimum: 1, maximum: 3650 })),
      backfillItems: t.Optional(t.Integer({ minimum: 1, maximum: 1000 })),
      initialImportCount: t.Optional(t.Integer({ minimum: 0, maximum: 1000, description: "at most this many entries on the first run" })),
      channel: t.Optional(t.String({ minLength: 1, maxLength: 2048, description: "youtube_channel: a channel URL" })),
      channelId: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "youtube_channel: UC followed by 22 characters" })),
      handle: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "youtube_channel: @handle; x_articles: the account" })),
      username: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "x_articles: the account's username" })),
      ...settingFields,
    }),
    response: t.Object({
      source: Source,
      existing: t.Optional(t.Boolean()),
      initialRun: t.Optional(InitialRun),
    }),
  }),
  deleteSource: op({
    method: "POST",
    path: "/api/sources/:id/delete",
    service: "sources",
    permission: "sources.write",
    tag: "Sources",
    summary: "Remove a source (the items it added stay)",
    params: IdParams,
    response: t.Object({ ok: t.Boolean() }),
  }),
  pauseSource: op({
    method: "POST",
    path: "/api/sources/:id/pause",
    service: "sources",
    permission: "sources.write",
    tag: "Sources",
    summary: "Stop automatic sync (status paused)",
    params: IdParams,
    response: SourceReply,
  }),
  resumeSource: op({
    method: "POST",
    path: "/api/sources/:id/resume",
    service: "sources",
    permission: "sources.write",
    tag: "Sources",
    summary: "Restart automatic sync (status syncing); the next poll is due now",
    params: IdParams,
    response: SourceReply,
  }),
  updateSourceSettings: op({
    method: "POST",
    path: "/api/sources/:id/settings",
    service: "sources",
    permission: "sources.write",
    tag: "Sources",
    summary: "Change name, polling interval, default tags, smart tag rules, full content, summaries or rollup",
    params: IdParams,
    body: t.Object(settingFields),
    response: SourceReply,
  }),
  setSourceDefaultTags: op({
    method: "POST",
    path: "/api/sources/:id/default-tags",
    service: "sources",
    permission: "sources.write",
    tag: "Sources",
    summary: "Replace the default tags",
    params: IdParams,
    body: t.Object({ tags: DefaultTags }),
    response: SourceReply,
  }),
  setSourceRollup: op({
    method: "POST",
    path: "/api/sources/:id/rollup",
    service: "sources",
    permission: "sources.write",
    tag: "Sources",
    summary: "Turn the rollup (one digest item per run) on or off",
    params: IdParams,
    body: t.Object({ enabled: t.Boolean() }),
    response: SourceReply,
  }),
  importOpml: op({
    method: "POST",
    path: "/api/sources/import-opml",
    service: "sources",
    permission: "sources.write",
    tag: "Sources",
    summary: "Follow the feeds of an OPML document (JSON {opml}, or the XML itself as text/x-opml, application/xml, text/xml or text/plain); folders become default tags",
    textBody: { field: "opml", contentTypes: ["text/x-opml", "application/xml", "text/xml", "text/plain"] },
    body: t.Object({ opml: OpmlText, defaultTags: t.Optional(DefaultTags) }),
    response: t.Object({
      created: t.Array(t.Object({ source: Source, tags: t.Array(t.String()) })),
      existing: t.Array(t.Object({ sourceId: t.String(), feedUrl: t.String(), title: t.String() }), { description: "already followed (also repeats within the file)" }),
      invalid: t.Array(t.Object({ title: t.String(), feedUrl: t.String(), error: t.String() }), { description: "outlines whose feed address cannot be followed" }),
      counts: t.Object({ created: Count(), existing: Count(), invalid: Count() }),
    }),
  }),
  exportOpml: op({
    method: "GET",
    path: "/api/sources/export-opml",
    service: "sources",
    permission: "sources.read",
    tag: "Sources",
    summary:
      "The account's feeds (rss and YouTube channels) as an OPML 2.0 file other readers import; credential-like query values are masked as in the source manifest, except for a personal key or session",
    produces: "text/x-opml",
    response: t.String({ description: "OPML 2.0: one outline per feed, inside a folder per first default tag" }),
  }),
  listSourceEvents: op({
    method: "GET",
    path: "/api/sources/:id/events",
    service: "sources",
    permission: "sources.read",
    tag: "Sources",
    summary: "The source's recent events (runs, items added, errors), newest first",
    params: t.Object({ id: Id }),
    query: t.Object({ limit: t.Optional(Limit(200, 50)), offset: t.Optional(Offset) }),
    response: t.Object({ events: t.Array(SourceEvent), limit: Int4(), offset: Int4(), count: Count() }),
  }),
  listSourceMessages: op({
    method: "GET",
    path: "/api/sources/:id/messages",
    service: "sources",
    permission: "sources.read",
    tag: "Sources",
    summary: "An email inbox's recent mail (sender, subject, time, the item it became), newest first; 404 for other source types",
    params: t.Object({ id: Id }),
    query: t.Object({ limit: t.Optional(Limit(200, 50)), offset: t.Optional(Offset) }),
    response: t.Object({ messages: t.Array(SourceMessage), limit: Int4(), offset: Int4(), count: Count() }),
  }),
  getSourceConfirmation: op({
    method: "GET",
    path: "/api/sources/:id/confirmation",
    service: "sources",
    // A confirmation acts for the owner (it completes a forwarding or a subscription into the inbox, so it changes
    // what flows into the library): the personal credential's, like every source change.
    permission: "sources.write",
    tag: "Sources",
    summary:
      "The latest confirmation link or code a mail provider sent to an email inbox (null when none came); personal key or session only, since using it acts for the owner; 404 for other source types",
    params: t.Object({ id: Id }),
    response: t.Object({ confirmation: t.Nullable(SourceConfirmation) }),
  }),
};
