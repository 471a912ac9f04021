// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP.
// Walks every operation of the contract table with hostile input derived from its TypeBox schemas: NUL
// characters and lone surrogates in every string, integers no column holds, huge strings and arrays, wrong
// types, unknown `include` values, and alice's real resources called with bob's key. No answer may be a 5xx;
// every error is JSON with a stable code of libs/errors at its own status, and never a stack trace.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { operations, pageTextMark, type Operation, type OperationName } from "@trove/contracts";
import { errorStatus, isErrorCode } from "@trove/errors";
import { aliceKey, articleHtml, bobKey, eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  // Variants that go through start export and import jobs: the open-job limit would turn the closing baseline away.
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000", TROVE_MAX_OPEN_JOBS: "1000", TROVE_SIGN_IN_LIMIT: "1000000", TROVE_SIGN_IN_ACCOUNT_LIMIT: "1000000" });
});
afterAll(() => trove.stop());

// ---- the fields of an operation, from its schemas --------------------------------------------------------

type Part = "params" | "query" | "body";
type Kind = "string" | "integer" | "number" | "boolean" | "enum" | "array" | "object";

interface Schema {
  type?: string;
  const?: unknown;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  items?: Schema;
  maxLength?: number;
  maxItems?: number;
  [mark: string]: unknown;
}

interface Field {
  part: Part;
  path: (string | number)[];
  kind: Kind;
  nullable: boolean;
  schema: Schema;
}

/** What a schema accepts, through nullable unions (and the numeric unions Elysia makes of query integers). */
function kindOf(s: Schema): { kind: Kind; nullable: boolean; inner: Schema } {
  const members = s.anyOf ?? [s];
  const nullable = members.some((m) => m.type === "null");
  const real = members.filter((m) => m.type !== "null");
  if (real.every((m) => m.const !== undefined)) return { kind: "enum", nullable, inner: s };
  const of = (t: string) => real.find((m) => m.type === t);
  for (const t of ["integer", "number", "array", "object", "boolean", "string"] as const) {
    const m = of(t);
    if (m) return { kind: t, nullable, inner: m };
  }
  throw new Error(`no kind for schema ${JSON.stringify(s)}`);
}

function fieldsOf(part: Part, schema: Schema | undefined, path: (string | number)[] = []): Field[] {
  if (!schema) return [];
  const { kind, nullable, inner } = kindOf(schema);
  const here: Field = { part, path, kind, nullable, schema: inner };
  if (kind === "object" && inner.properties) {
    const children = Object.entries(inner.properties).flatMap(([k, v]) => fieldsOf(part, v, [...path, k]));
    return path.length === 0 ? children : [here, ...children];
  }
  if (kind === "array" && inner.items) return [here, ...fieldsOf(part, inner.items, [...path, 0])];
  return [here];
}

const nameOf = (f: Field) => f.path.join(".");

// ---- requests ----------------------------------------------------------------------------------------------

interface Input {
  params?: Record<string, string>;
  /** A list repeats the key. */
  query?: Record<string, string | string[]>;
  body?: unknown;
  /** Sent as is instead of `body`. */
  raw?: { contentType: string; text: string };
}

/** Percent-encodes like a client would, lone surrogates included (as their WTF-8 bytes, which no decoder accepts). */
function encode(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    if (pair) out += encodeURIComponent(s.slice(i, ++i + 1));
    else if (c >= 0xd800 && c <= 0xdfff) out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join("");
    else out += encodeURIComponent(s[i]!);
  }
  return out;
}

const rawMark = "__raw_json__";
/** A value written into the body as this JSON text: numbers JSON.stringify cannot write (1e309), deep nesting. */
const rawJson = (text: string) => ({ [rawMark]: text });

const bodyText = (body: unknown) => JSON.stringify(body).replace(new RegExp(`\\{"${rawMark}":"([^"]+)"\\}`, "g"), "$1");

interface Sent {
  label: string;
  status: number;
  text: string;
  contentType: string;
}

async function send(op: Operation, input: Input, label: string, key?: string): Promise<Sent> {
  const path = op.path.replace(/:(\w+)/g, (_, name: string) => encode(input.params?.[name] ?? ""));
  const query = Object.entries(input.query ?? {})
    .flatMap(([k, v]) => [v].flat().map((one) => `${encode(k)}=${encode(one)}`))
    .join("&");
  const init: Parameters<TestTrove["api"]>[1] = { method: op.method, key };
  if (input.body !== undefined) init.body = bodyText(input.body);
  if (input.body !== undefined) init.headers = { "content-type": "application/json" };
  if (input.raw) [init.body, init.headers] = [input.raw.text, { "content-type": input.raw.contentType }];
  const res = await trove.api(query ? `${path}?${query}` : path, init);
  return { label: `${op.method} ${path}${query ? `?${query.slice(0, 80)}` : ""} ${label}`, status: res.status, text: await res.text(), contentType: res.headers.get("content-type") ?? "" };
}

const stackTrace = /\n\s+at |\bat \S+ \(|\.tsx?:\d+|node_modules|\b(Type|Reference|Syntax|Range)Error\b/;

/** What is wrong with an answer (a 5xx, or an error that is not stable JSON), or null. */
function problemOf(r: Sent): string | null {
  if (r.status >= 500) return `${r.label}: ${r.status} ${r.text.slice(0, 200)}`;
  if (stackTrace.test(r.text) && r.status >= 400) return `${r.label}: stack trace in ${r.text.slice(0, 200)}`;
  if (r.status < 400) return null;
  if (!r.contentType.includes("json")) return `${r.label}: ${r.status} answered ${r.contentType}`;
  let body: { error?: unknown };
  try {
    body = JSON.parse(r.text);
  } catch {
    return `${r.label}: ${r.status} body is not JSON`;
  }
  if (!isErrorCode(body.error)) return `${r.label}: unknown error code ${String(body.error)}`;
  if (errorStatus[body.error] !== r.status) return `${r.label}: ${body.error} answered with ${r.status}`;
  return null;
}

/** Expects 400 validation_failed naming `field`. */
function refusal(r: Sent, field: string): string | null {
  const bad = problemOf(r);
  if (bad) return bad;
  const body = r.status === 400 ? JSON.parse(r.text) : {};
  if (r.status !== 400 || body.error !== "validation_failed") return `${r.label}: expected 400 validation_failed, got ${r.status} ${r.text.slice(0, 160)}`;
  // A union (a nullable list, say) is reported at the union: `tags` for a bad `tags.0`; a lone value Elysia wraps
  // into a list is reported inside it: `rules.0.field` for a bad `rules`.
  const named = Object.keys(body.fields ?? {}).some((k) => k === field || field.startsWith(`${k}.`) || k.startsWith(`${field}.`));
  if (!named) return `${r.label}: fields ${JSON.stringify(Object.keys(body.fields ?? {}))} do not name ${field}`;
  return null;
}

// ---- fixtures: alice's real resources, fresh for each operation ---------------------------------------------

const png = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e2a4a20000000049454e44ae426082",
  "hex",
).toString("base64");

interface Fixtures {
  sessionId: string;
  itemId: string;
  highlightId: string;
  mediaId: string;
  tagSlug: string;
  collectionId: string;
  webhookId: string;
  clientId: string;
  noteId: string;
  archivedNoteId: string;
  projectId: string;
  linkId: string;
  sourceId: string;
  inboxId: string;
  exportId: string;
  importId: string;
  n: number;
}

let serial = 0;
async function fixtures(): Promise<Fixtures> {
  const n = serial++;
  const ok = async (path: string, json: unknown) => {
    const res = await trove.api(path, { method: "POST", json });
    expect(res.status).toBe(200);
    return res.json();
  };
  const itemId = (await ok("/api/ingest", { url: `https://hostile.example.test/item/${n}`, source: "walk", html: articleHtml })).id;
  const tagSlug = (await ok("/api/tags", { name: `hostile ${n}` })).tag.slug;
  const collectionId = (await ok("/api/collections", { name: `hostile ${n}` })).collection.id;
  await ok(`/api/items/${itemId}`, { tags: [tagSlug], collectionId });
  const highlightId = (await ok(`/api/items/${itemId}/highlights`, { text: "Parsers turn text" })).highlight.id;
  const mediaId = (await ok(`/api/items/${itemId}/media`, { contentType: "image/png", dataBase64: png, alt: "pixel" })).media.id;
  // Port 9 (discard) on loopback: deliveries to it fail at once, and no test waits for them.
  const webhookId = (await ok("/api/webhooks", { url: `http://127.0.0.1:9/hostile/${n}` })).endpoint.id;
  const clientId = (await ok("/api/connected-clients", { name: `hostile ${n}` })).client.id;
  const sessionId = (await ok("/api/session", { key: aliceKey })).session.id;
  const projectId = (await ok("/api/projects", { name: `hostile ${n}`, repositories: [`https://github.com/hostile/p${n}`] })).project.id;
  const noteId = (await ok("/api/notes", { title: `hostile ${n}`, bodyMarkdown: "# Walk\nParsers turn text", project: projectId, tags: [tagSlug] })).note.id;
  const archivedNoteId = (await ok("/api/notes", { title: `archived ${n}`, bodyMarkdown: "gone" })).note.id;
  await ok(`/api/notes/${archivedNoteId}/archive`, { expectedRevision: 1 });
  const linkId = (await ok(`/api/notes/${noteId}/item-links`, { itemId, relation: "evidence" })).link.id;
  const sourceId = (await ok("/api/sources", { type: "rss", feedUrl: `http://127.0.0.1:9/hostile/feed/${n}` })).source.id;
  const inboxId = (await ok("/api/sources", { type: "email_inbox" })).source.id;
  const exportId = (await ok("/api/exports", { format: "json" })).export.id;
  // No tags, folders or highlights: a job finishing while bob's requests run must not change what alice sees.
  const importId = (await ok("/api/imports", { file: bookmarks(n), format: "netscape_html" })).import.id;
  await eventually(async () => (await (await trove.api(`/api/exports/${exportId}`)).json()).export.status === "completed", 20_000);
  return { sessionId, itemId, highlightId, mediaId, tagSlug, collectionId, webhookId, clientId, noteId, archivedNoteId, projectId, linkId, sourceId, inboxId, exportId, importId, n };
}

/** A one-bookmark Netscape file, base64 (its page is refused when fetched: `.test` never resolves). */
const bookmarks = (n: number) =>
  Buffer.from(`<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="https://hostile.example.test/bookmark/${n}" ADD_DATE="1700000000">Walked</A>\n</DL><p>\n`).toString("base64");

/** A request each operation answers 2xx; the hostile variants each change one thing in it. */
const baselines: Record<OperationName, (f: Fixtures) => Input> = {
  health: () => ({}),
  ping: () => ({}),
  me: () => ({}),
  stats: () => ({ query: { since: "0", until: "4102444800" } }),
  ingest: (f) => ({ body: { url: `https://hostile.example.test/new/${f.n}`, source: "walk", html: articleHtml } }),
  listItems: (f) => ({
    query: { since: "0", until: "4102444800", status: "stashed", tags: f.tagSlug, collection: f.collectionId, source: "walk", include: "content", limit: "10", offset: "0" },
  }),
  searchItems: (f) => ({
    query: { q: "parser", mode: "hybrid", since: "0", until: "4102444800", status: "stashed", tags: f.tagSlug, collection: f.collectionId, source: "walk", include: "content", limit: "10", offset: "0" },
  }),
  getItem: (f) => ({ params: { id: f.itemId }, query: { include: "content" } }),
  updateItem: (f) => ({
    params: { id: f.itemId },
    body: { title: "A title", notes: "notes", tags: ["walked"], collectionId: f.collectionId, collectionIds: [f.collectionId], archived: false, processed: false, status: "flagged" },
  }),
  archiveItems: (f) => ({ body: { ids: [f.itemId] } }),
  deleteItems: (f) => ({ body: { ids: [f.itemId] } }),
  markProcessed: (f) => ({ body: { ids: [f.itemId] } }),
  itemContent: (f) => ({ params: { id: f.itemId } }),
  readItem: (f) => ({ params: { id: f.itemId }, query: { view: "search", q: "parser", contextLines: "1", limit: "5", lines: "1:5" } }),
  listMedia: (f) => ({ params: { id: f.itemId }, query: { limit: "5", offset: "0" } }),
  uploadMedia: (f) => ({ params: { id: f.itemId }, body: { contentType: "image/png", dataBase64: png, alt: "alt", title: "title" } }),
  getMedia: (f) => ({ params: { id: f.itemId, mediaId: f.mediaId } }),
  listHighlights: (f) => ({ params: { id: f.itemId }, query: { limit: "5", offset: "0" } }),
  createHighlight: (f) => ({ params: { id: f.itemId }, body: { text: "Parsers", prefix: "", suffix: " turn", note: "note", startOffset: 0, endOffset: 7 } }),
  getHighlight: (f) => ({ params: { id: f.highlightId } }),
  updateHighlight: (f) => ({ params: { id: f.highlightId }, body: { text: "Parsers", prefix: "", suffix: " turn", note: "note", startOffset: 0, endOffset: 7 } }),
  deleteHighlight: (f) => ({ params: { id: f.highlightId } }),
  listTags: () => ({}),
  createTag: () => ({ body: { name: "Created", description: "described" } }),
  updateTag: (f) => ({ params: { slug: f.tagSlug }, body: { name: "Renamed", description: "described" } }),
  deleteTag: (f) => ({ params: { slug: f.tagSlug } }),
  listCollections: () => ({}),
  createCollection: () => ({ body: { name: "Created" } }),
  createClient: (f) => ({ body: { name: "walk", access: "read_only", scope: { tagSlugs: [f.tagSlug] } } }),
  listClients: () => ({}),
  revokeClient: (f) => ({ body: { id: f.clientId } }),
  createSession: () => ({ body: { key: aliceKey } }),
  getSession: () => ({}),
  deleteSession: () => ({}),
  listSessions: () => ({}),
  revokeSession: (f) => ({ body: { id: f.sessionId } }),
  setPassword: () => ({ body: { password: "correct horse battery staple", currentPassword: "correct horse battery staple" } }),
  feed: (f) => ({ query: { since: "0", until: "4102444800", q: "parser", tags: f.tagSlug, collection: f.collectionId, limit: "10", offset: "0" } }),
  listWebhooks: () => ({ query: { limit: "10", offset: "0" } }),
  createWebhook: (f) => ({ body: { name: "walk", url: `http://127.0.0.1:9/new/${f.n}`, eventTypes: ["item.created"], resourceScope: { tagSlugs: [f.tagSlug] } } }),
  getWebhook: (f) => ({ params: { id: f.webhookId } }),
  updateWebhook: (f) => ({
    params: { id: f.webhookId },
    body: { name: "renamed", url: `http://127.0.0.1:9/moved/${f.n}`, eventTypes: ["*"], resourceScope: { tagSlugs: [f.tagSlug] }, status: "paused" },
  }),
  deleteWebhook: (f) => ({ params: { id: f.webhookId } }),
  testWebhook: (f) => ({ params: { id: f.webhookId } }),
  rotateWebhookSecret: (f) => ({ params: { id: f.webhookId }, body: { revokePrevious: true } }),
  listWebhookDeliveries: (f) => ({ params: { id: f.webhookId }, query: { limit: "10", offset: "0", status: "pending" } }),
  itemChanges: (f) => ({ query: { updated_since: "0", tags: f.tagSlug, collection: f.collectionId, limit: "10", include: "content" } }),
  // Writes guarded by expectedRevision carry a clientRequestId: the first variant that goes through is the write,
  // and every later one (the closing baseline too) gets its receipt back instead of a 409.
  listNotes: (f) => ({
    query: { project: f.projectId, repository: `github.com/hostile/p${f.n}`, kind: "walk", state: "open", tags: f.tagSlug, archived: "any", include: "content", limit: "10", offset: "0" },
  }),
  createNote: (f) => ({
    body: { title: "Walked", bodyMarkdown: "# Walked", kind: "walk", state: "open", tags: [f.tagSlug], project: f.projectId, repository: "github.com/hostile/notes", paths: ["src/"], properties: { a: 1 } },
  }),
  search: (f) => ({
    query: {
      q: "parsers",
      types: "item,note",
      mode: "hybrid",
      project: f.projectId,
      path: "src/api/routes.ts",
      exactProject: "false",
      exactPath: "false",
      kind: "walk",
      state: "open",
      tags: f.tagSlug,
      include: "content",
      limit: "10",
    },
  }),
  searchNotes: (f) => ({ query: { q: "parsers", mode: "lexical", project: f.projectId, kind: "walk", state: "open", tags: f.tagSlug, archived: "any", limit: "10", offset: "0" } }),
  exportNotes: () => ({}),
  getNote: (f) => ({ params: { id: f.noteId } }),
  readNote: (f) => ({ params: { id: f.noteId }, query: { view: "search", q: "parsers", contextLines: "1", limit: "5", lines: "1:2", revision: "1" } }),
  updateNote: (f) => ({
    params: { id: f.noteId },
    body: {
      expectedRevision: 1,
      title: "Retitled",
      bodyMarkdown: "# Replaced",
      tags: ["walked"],
      project: f.projectId,
      repository: "github.com/hostile/notes",
      paths: ["docs/"],
      kind: "walk",
      state: "done",
      properties: { b: 2 },
      clientRequestId: "walk-update",
    },
  }),
  appendNote: (f) => ({ params: { id: f.noteId }, body: { bodyMarkdown: "more", expectedRevision: 1, clientRequestId: "walk-append" } }),
  archiveNote: (f) => ({ params: { id: f.noteId }, body: { expectedRevision: 1, clientRequestId: "walk-archive" } }),
  restoreNote: (f) => ({ params: { id: f.archivedNoteId }, body: { expectedRevision: 2, clientRequestId: "walk-restore" } }),
  noteHistory: (f) => ({ params: { id: f.noteId }, query: { include: "content", limit: "5", offset: "0" } }),
  restoreNoteRevision: (f) => ({ params: { id: f.noteId, revision: "1" }, body: { expectedRevision: 1, clientRequestId: "walk-revision" } }),
  createNoteItemLink: (f) => ({ params: { id: f.noteId }, body: { itemId: f.itemId, highlightId: f.highlightId, relation: "source", annotation: "why" } }),
  deleteNoteItemLink: (f) => ({ params: { id: f.noteId, linkId: f.linkId } }),
  noteContext: (f) => ({ params: { id: f.noteId }, query: { history: "true", content: "true", sourceLimit: "5", historyLimit: "5", contentBytes: "100" } }),
  listProjects: () => ({ query: { includeArchived: "true", limit: "10", offset: "0" } }),
  getProject: (f) => ({ params: { id: f.projectId } }),
  // No repositories here: a variant that goes through would claim them, and the closing baseline would find them taken.
  createProject: () => ({ body: { name: "Walked", description: "d", color: "#336699", state: "paused" } }),
  updateProject: (f) => ({
    params: { id: f.projectId },
    body: { name: "Renamed", description: "d", color: "#abc", state: "completed", repositories: [`https://github.com/hostile/p${f.n}`] },
  }),
  deleteProject: (f) => ({ params: { id: f.projectId } }),
  contextBrief: (f) => ({ query: { project: `https://github.com/hostile/p${f.n}.git`, path: "src/api/routes.ts", limit: "5" } }),
  listSources: () => ({ query: { include: "settings", type: "rss", limit: "10", offset: "0" } }),
  getSource: (f) => ({ params: { id: f.sourceId }, query: { include: "sensitive" } }),
  createSource: (f) => ({
    body: {
      type: "rss",
      feedUrl: `http://127.0.0.1:9/hostile/new-feed/${f.n}`,
      name: "Walked",
      pollEveryMin: 30,
      backfillMode: "days",
      backfillDays: 7,
      initialImportCount: 5,
      defaultTags: ["walked"],
      smartTagRules: [{ field: "title", contains: "parser", tags: ["parsing"] }],
      expandFullContent: false,
      autoSummarize: true,
      rollupEnabled: false,
    },
  }),
  deleteSource: (f) => ({ params: { id: f.sourceId } }),
  pauseSource: (f) => ({ params: { id: f.sourceId } }),
  resumeSource: (f) => ({ params: { id: f.sourceId } }),
  updateSourceSettings: (f) => ({
    params: { id: f.sourceId },
    body: {
      name: "Renamed",
      pollEveryMin: 15,
      defaultTags: ["walked"],
      smartTagRules: [{ field: "any", contains: "parser", tags: ["parsing"] }],
      expandFullContent: true,
      autoSummarize: false,
      rollupEnabled: true,
    },
  }),
  setSourceDefaultTags: (f) => ({ params: { id: f.sourceId }, body: { tags: ["walked", "feeds"] } }),
  setSourceRollup: (f) => ({ params: { id: f.sourceId }, body: { enabled: true } }),
  listSourceEvents: (f) => ({ params: { id: f.sourceId }, query: { limit: "10", offset: "0" } }),
  listSourceMessages: (f) => ({ params: { id: f.inboxId }, query: { limit: "10", offset: "0" } }),
  getSourceConfirmation: (f) => ({ params: { id: f.inboxId } }),
  importOpml: (f) => ({
    body: { opml: `<opml version="2.0"><body><outline text="Walk"><outline text="Feed" xmlUrl="http://127.0.0.1:9/hostile/opml/${f.n}"/></outline></body></opml>`, defaultTags: ["walked"] },
  }),
  exportOpml: () => ({}),
  createExport: (f) => ({ body: { format: "csv", tags: [f.tagSlug], collection: f.collectionId, status: ["stashed", "archived"], includeContent: true, includeNotes: false } }),
  listExports: () => ({ query: { limit: "10", offset: "0" } }),
  getExport: (f) => ({ params: { jobId: f.exportId } }),
  downloadExport: (f) => ({ params: { jobId: f.exportId } }),
  createImport: (f) => ({ query: { format: "netscape_html", fileName: "bookmarks.html" }, body: { file: bookmarks(f.n), format: "netscape_html", fileName: "bookmarks.html" } }),
  listImports: () => ({ query: { limit: "10", offset: "0" } }),
  getImport: (f) => ({ params: { jobId: f.importId }, query: { limit: "10", offset: "0" } }),
};

// ---- variants ------------------------------------------------------------------------------------------------

const clone = <T>(v: T): T => structuredClone(v);

/** The input with one field set to `value`, creating the objects and arrays on its path. */
function withField(input: Input, f: Field, value: unknown): Input {
  const out = clone(input);
  if (f.part !== "body") {
    const bag: Record<string, unknown> = (out[f.part] ??= {});
    bag[String(f.path[0])] = value;
    return out;
  }
  if (out.body === undefined || typeof out.body !== "object") out.body = {};
  let at = out.body as Record<string | number, unknown>;
  f.path.forEach((key, i) => {
    if (i === f.path.length - 1) at[key] = value;
    else {
      if (at[key] === undefined || typeof at[key] !== "object") at[key] = typeof f.path[i + 1] === "number" ? [] : {};
      at = at[key] as Record<string | number, unknown>;
    }
  });
  return out;
}

const hugeNumbers = ["99999999999999999999", "3000000000", "-1", "1e309"];
const isPageText = (f: Field) => f.schema[pageTextMark] === true;
const inUrl = (f: Field) => f.part !== "body";

/** Values of the wrong JSON type for a body field (each refused by its schema). */
function wrongTypes(f: Field): unknown[] {
  const all: Record<Kind, unknown[]> = {
    string: [12345, true, { a: 1 }, ["x"]],
    enum: [12345, true, { a: 1 }],
    integer: ["12", true, 1.5, { a: 1 }],
    number: ["12", true, { a: 1 }],
    boolean: ["true", 1, { a: 1 }],
    array: ["x", 3, { a: 1 }],
    object: ["x", 3, [1]],
  };
  return f.nullable ? all[f.kind] : [...all[f.kind], null];
}

async function walk(name: OperationName): Promise<string[]> {
  const op = operations[name] as Operation;
  const problems: string[] = [];
  const note = (p: string | null) => p && problems.push(p);
  const f = await fixtures();
  const base = baselines[name](f);
  // One set of resources per operation (fresh ones per variant would cost minutes): a variant that is
  // legitimately fine may change them as alice's request says; bob's requests are checked to change nothing.
  const baseline = () => clone(base);
  // A write guarded by expectedRevision carries a clientRequestId in its baseline and is sent first: that write is
  // the one every later request with the same id (the closing baseline too) gets back, whatever the variants did.
  if (typeof (base.body as { clientRequestId?: unknown } | undefined)?.clientRequestId === "string") {
    const first = await send(op, baseline(), "baseline, first");
    if (first.status !== 200) problems.push(`${first.label}: answered ${first.status} ${first.text.slice(0, 200)}`);
  }

  const fields = [...fieldsOf("params", op.params as Schema), ...fieldsOf("query", op.query as Schema), ...fieldsOf("body", op.body as Schema)];
  for (const field of fields) {
    const label = (what: string) => `${field.part}.${nameOf(field)} = ${what}`;
    if (field.kind === "string" || field.kind === "enum") {
      for (const [what, value] of [
        ["NUL", "a\u0000b"],
        ["NUL only", "\u0000"],
        ["lone high surrogate", "a\ud800b"],
        ["lone low surrogate", "\udc00"],
      ] as const) {
        const r = await send(op, withField(baseline(), field, value), label(what));
        const surrogateInUrl = inUrl(field) && what.startsWith("lone");
        // A URL cannot carry a lone surrogate (its bytes are not UTF-8): whatever it decodes to must not fail.
        if (isPageText(field) || surrogateInUrl) note(problemOf(r));
        else note(refusal(r, nameOf(field)));
        if (isPageText(field) && r.status !== 200) problems.push(`${r.label}: captured page text answered ${r.status}`);
      }
      for (const v of ["99999999999999999999", "-1", "1e309", "NaN", "null", "[]", "{}", "../../etc/passwd"]) {
        note(problemOf(await send(op, withField(baseline(), field, v), label(JSON.stringify(v)))));
      }
      const long = inUrl(field) ? 10_000 : 200_000;
      const huge = await send(op, withField(baseline(), field, "x".repeat(long)), label(`${long} characters`));
      if (field.schema.maxLength !== undefined && field.schema.maxLength < long) note(refusal(huge, nameOf(field)));
      else note(problemOf(huge));
    }
    if (field.kind === "integer" || field.kind === "number") {
      for (const n of hugeNumbers) {
        const value = inUrl(field) ? n : rawJson(n);
        note(refusal(await send(op, withField(baseline(), field, value), label(n)), nameOf(field)));
      }
      if (inUrl(field)) {
        for (const v of ["abc", "1.5", ""]) {
          const r = await send(op, withField(baseline(), field, v), label(JSON.stringify(v)));
          // An empty path segment names another route: no route is 404 not_found, as for any unknown path.
          if (field.part === "params" && v === "") note(problemOf(r) ?? (r.status === 404 ? null : `${r.label}: expected 404 for an empty path segment, got ${r.status}`));
          else note(refusal(r, nameOf(field)));
        }
        // Elysia reads a query number as JavaScript does (0x10 is 16): lenient, but never a failure.
        note(problemOf(await send(op, withField(baseline(), field, "0x10"), label("0x10"))));
      }
    }
    if (field.kind === "array") {
      const many = Array.from({ length: 20_000 }, (_, i) => `x${i}`);
      const r = await send(op, withField(baseline(), field, many), label("20,000 elements"));
      if (field.schema.maxItems !== undefined) note(refusal(r, nameOf(field)));
      else note(problemOf(r));
    }
    if (field.part === "body" && (field.kind === "array" || field.kind === "object")) {
      const deep = rawJson("[".repeat(50_000) + "]".repeat(50_000));
      note(refusal(await send(op, withField(baseline(), field, deep), label("arrays nested 50,000 deep")), nameOf(field)));
    }
    if (field.part === "query") {
      // A repeated key: the last one counts, whichever it is.
      const good = String((baseline().query ?? {})[nameOf(field)] ?? "1");
      for (const pair of [[good, "a\u0000b"], ["a\u0000b", good]]) note(problemOf(await send(op, withField(baseline(), field, pair), label(`repeated ${JSON.stringify(pair)}`))));
    }
    if (field.part === "body") {
      for (const v of wrongTypes(field)) note(refusal(await send(op, withField(baseline(), field, v), label(JSON.stringify(v))), nameOf(field)));
    }
    if (field.part === "query" && nameOf(field) === "include") {
      for (const v of ["bogus", "content,bogus", "CONTENT", "highlights", ""]) {
        note(refusal(await send(op, withField(baseline(), field, v), label(JSON.stringify(v))), "include"));
      }
    }
  }

  if (op.body) {
    for (const v of [[], "text", 42, null]) {
      const r = await send(op, { ...baseline(), body: v }, `body = ${JSON.stringify(v)}`);
      note(problemOf(r));
      // Where the body may be a file, JSON that is not the JSON form is the file itself (an import of `[]` is a file).
      if (r.status !== 400 && !op.fileBody) problems.push(`${r.label}: a body that is not an object answered ${r.status}`);
    }
    const deep = { ...(baseline().body as object), nested: rawJson("[".repeat(50_000) + "]".repeat(50_000)) };
    note(refusal(await send(op, { ...baseline(), body: deep }, "with an unknown field nested 50,000 deep"), "nested"));
  }

  // Another account's resources: bob gets 404 for alice's ids in the path, and changes nothing of hers. The
  // requests that may go through (unknown fields, other encodings) are sent as bob too, for the same reason.
  const aliceSees = () =>
    Promise.all(
      [`/api/items/${f.itemId}`, `/api/items/${f.itemId}/highlights`, `/api/items/${f.itemId}/media`, `/api/items/${f.itemId}/media/${f.mediaId}`, "/api/tags", "/api/collections"].map(
        async (p) => {
          const r = await trove.api(p);
          return `${p} ${r.status} ${await r.text()}`;
        },
      ),
    );
  const before = await aliceSees();
  const asBob = await send(op, baseline(), "as bob", bobKey);
  note(problemOf(asBob));
  if (op.params && asBob.status !== 404) problems.push(`${asBob.label}: answered ${asBob.status}, not 404`);
  if (op.body) {
    // Unknown fields are ignored, whatever they hold.
    const extra = { ...(baseline().body as object), "unknown\u0000": "a\u0000\ud800", other: { a: [1, { b: null }] } };
    const r = await send(op, { ...baseline(), body: extra }, "with unknown fields, as bob", bobKey);
    note(problemOf(r));
    if (r.status !== asBob.status) problems.push(`${r.label}: unknown fields were not ignored: ${r.status} ${r.text.slice(0, 160)}`);
    // Other encodings of the baseline (a form's values are strings), or of garbage: refused or read, never a failure.
    const form = new URLSearchParams(Object.entries(baseline().body as object).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)]));
    for (const raw of [
      { contentType: "application/x-www-form-urlencoded", text: form.toString() },
      { contentType: "application/x-www-form-urlencoded", text: "a%00=b%00&%ZZ=%" },
      { contentType: "text/plain", text: "just text\u0000" },
      { contentType: "application/json", text: '{"unterminated": "' },
      { contentType: "application/octet-stream", text: "\u0000\u0001binary" },
      { contentType: "multipart/form-data; boundary=x", text: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--' },
    ]) {
      note(problemOf(await send(op, { ...baseline(), body: undefined, raw }, `body as ${raw.contentType}: ${JSON.stringify(raw.text.slice(0, 30))}, as bob`, bobKey)));
    }
  }
  if (op.query) {
    const r = await send(op, { ...baseline(), query: { ...baseline().query, "unknown\u0000": "a\u0000" } }, "with an unknown query field, as bob", bobKey);
    note(problemOf(r));
    if (r.status !== asBob.status) problems.push(`${r.label}: an unknown query field was not ignored: ${r.status} ${r.text.slice(0, 160)}`);
  }
  const after = await aliceSees();
  if (JSON.stringify(after) !== JSON.stringify(before)) problems.push(`bob's calls changed what alice sees: ${JSON.stringify({ before, after }).slice(0, 600)}`);

  // Last, the baseline itself must succeed: the variants above tested a request that works.
  const ok = await send(op, baseline(), "baseline");
  if (ok.status !== 200) problems.push(`${ok.label}: baseline answered ${ok.status} ${ok.text.slice(0, 200)}`);
  return problems;
}

describe("hostile input on every route of the contract", () => {
  test("every operation has a baseline request", () => {
    expect(Object.keys(baselines).sort()).toEqual(Object.keys(operations).sort());
  });

  for (const name of Object.keys(operations) as OperationName[]) {
    test(`${name}: no 5xx, every error a stable JSON code, NUL and lone surrogates refused naming the field`, async () => {
      expect(await walk(name)).toEqual([]);
    }, 120_000);
  }
});

describe("request bodies keep their JSON shape", () => {
  const patch = async (f: Fixtures, body: string, contentType = "application/json") => {
    const res = await trove.api(`/api/highlights/${f.highlightId}`, { method: "PATCH", body, headers: { "content-type": contentType } });
    return { status: res.status, body: await res.json() };
  };

  test("a body that is not an object answers 400 rather than being read as {}", async () => {
    const f = await fixtures();
    for (const body of ["[]", '"text"', "42", "null"]) {
      expect(await patch(f, body)).toMatchObject({ status: 400, body: { error: "validation_failed", fields: { body: "expected a JSON object" } } });
    }
  });

  test("a number sent as a JSON string answers 400 naming the field; a form's strings are still read", async () => {
    const f = await fixtures();
    expect(await patch(f, '{"startOffset": "0", "endOffset": 7}')).toMatchObject({ status: 400, body: { fields: { startOffset: "expected a number, not a string" } } });
    // Text not in the page keeps the offsets given: they were read as numbers.
    const form = await patch(f, "text=not+in+the+page&startOffset=5&endOffset=9", "application/x-www-form-urlencoded");
    expect(form).toMatchObject({ status: 200, body: { highlight: { text: "not in the page", startOffset: 5, endOffset: 9 } } });
  });

  test("nesting deeper than 32 levels answers 400 naming the field, known or not (it answered 500)", async () => {
    const f = await fixtures();
    const deep = "[".repeat(50_000) + "]".repeat(50_000);
    const ids = await trove.api("/api/items/archive", { method: "POST", body: `{"ids": ${deep}}`, headers: { "content-type": "application/json" } });
    expect(ids.status).toBe(400);
    expect((await ids.json()).fields).toEqual({ ids: "nested more than 32 levels deep" });
    expect(await patch(f, `{"note": "x", "extra": ${deep}}`)).toMatchObject({ status: 400, body: { fields: { extra: "nested more than 32 levels deep" } } });
    // 32 levels of an unknown field are ignored like any unknown field.
    const fine = "[".repeat(31) + "]".repeat(31);
    expect(await patch(f, `{"note": "x", "extra": ${fine}}`)).toMatchObject({ status: 200, body: { highlight: { note: "x" } } });
  });
});
