// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP.
// Who may call what: every kind of credential against every operation of the contract, each cell's status asserted.
//   credentials: alice's personal key and her session cookie (with its CSRF token, without one, with a wrong one,
//   and after signing out), her read-write, read-only, tag-scoped and collection-scoped client keys, a revoked key,
//   bob's key and bob's session, and none;
//   401: a revoked key, an ended session, or none (on every operation that needs a credential);
//   403: a write made with a session cookie but not its CSRF token (signing in excepted); a missing permission:
//        client keys on the personal-only permissions, read-only keys on anything but GET and on source settings,
//        scoped keys on notes, projects and sources and on what changes the whole library (imports, tag and
//        collection definitions);
//   404: another account's resource, or an item outside a scoped key's scope (never 403);
//   409: a scoped key saving the URL of an item outside its scope (the item neither changes nor shows);
//   otherwise allowed: 200.
// Some cells check the answer too: a caller reads what it saves, a scoped key's tag and collection lists hold only
// what is in its scope (with in-scope counts), and no client key is told the owner's email.
// The table of sample requests is keyed by operation name: an operation added to the contract without a sample
// here fails the test by name, so the matrix grows with the contract.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { operations, type Operation } from "@trove/contracts";
import { aliceKey, articleHtml, bobKey, createClient, eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;

// ---- roles: every kind of credential ------------------------------------------------------------------------

const roles = [
  "personal",
  "session",
  "readWrite",
  "readOnly",
  "tagScoped",
  "collectionScoped",
  "otherAccount",
  "otherSession",
  "revoked",
  "signedOut",
  "cookieNoCsrf",
  "cookieWrongCsrf",
  "noKey",
] as const;
type Role = (typeof roles)[number];
const clientRoles = new Set<Role>(["readWrite", "readOnly", "tagScoped", "collectionScoped"]);
const scopedRoles = new Set<Role>(["tagScoped", "collectionScoped"]);
/** Credentials that stand for alice herself: her personal key, and her live session cookie. */
const aliceRoles = new Set<Role>(["personal", "session", "cookieNoCsrf", "cookieWrongCsrf"]);
/** Bob's credentials: alice's resources are not there for them. */
const otherRoles = new Set<Role>(["otherAccount", "otherSession"]);
/** Credentials that name no live caller. */
const deadRoles = new Set<Role>(["revoked", "signedOut", "noKey"]);
/** A live session cookie sent without its CSRF token, or with a wrong one. */
const noCsrfRoles = new Set<Role>(["cookieNoCsrf", "cookieWrongCsrf"]);
/** Permissions only a personal key has (the spec: credentials, the change stream, webhook management). */
const personalOnly = new Set(["clients.manage", "webhooks.manage", "changes.read", "sources.write"]);
/** Operations that change the whole library, or the definitions its scopes are made of: no scoped key calls them. */
const wholeLibrary = new Set(["createImport", "createTag", "updateTag", "deleteTag", "createCollection"]);

const keys: Partial<Record<Role, string | null>> = {};
const scopeTag = "matrix-scope";
let scopeCollection = "";
/** A tag and a collection on both shared items, the one inside the scopes and the one outside them. */
const sharedTag = "matrix-shared";
let sharedCollection = "";
const aliceEmail = "alice@example.test";

/** What a request is sent with: a bearer key, or a session cookie with the CSRF token it sends (if any). */
interface Credential {
  key: string | null;
  cookie?: string;
  csrf?: string;
}

/** Signs in with a personal key, as the web app does with a password: the session cookie and its CSRF token. */
async function signIn(key: string): Promise<{ cookie: string; csrf: string }> {
  const res = await trove.api("/api/session", { method: "POST", key: null, json: { key } });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`signing in answered ${res.status}: ${JSON.stringify(body)}`);
  const cookie = /trove_session=([^;]+)/.exec(res.headers.getSetCookie().join("\n"))?.[1];
  if (!cookie) throw new Error("signing in set no session cookie");
  return { cookie, csrf: body.csrfToken };
}

/**
 * The credential of a role for one cell. Sessions are made anew for each cell: a cell may end its session (signing
 * out) or all of alice's (setting the password).
 */
async function credential(role: Role): Promise<Credential> {
  switch (role) {
    case "session":
      return { key: null, ...(await signIn(aliceKey)) };
    case "otherSession":
      return { key: null, ...(await signIn(bobKey)) };
    case "signedOut": {
      const live = await signIn(aliceKey);
      const out = await send({ method: "DELETE", path: "/api/session" }, {}, { key: null, ...live });
      if (out.status !== 200) throw new Error(`signing out answered ${out.status}: ${out.text}`);
      return { key: null, ...live };
    }
    case "cookieNoCsrf":
      return { key: null, cookie: (await signIn(aliceKey)).cookie };
    case "cookieWrongCsrf": {
      const live = await signIn(aliceKey);
      return { key: null, cookie: live.cookie, csrf: `${live.csrf.slice(1)}x` };
    }
    default:
      return { key: keys[role] ?? null };
  }
}

// ---- fixtures: alice's resources -------------------------------------------------------------------------

const png = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e2a4a20000000049454e44ae426082",
  "hex",
).toString("base64");

/** Alice's resources a request names; the item is inside both scopes, or outside them both. */
interface Target {
  inside: boolean;
  sessionId: string;
  itemId: string;
  itemUrl: string;
  highlightId: string;
  mediaId: string;
  tagSlug: string;
  collectionId: string;
  clientId: string;
  webhookId: string;
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
/** `shared`: the item also carries the shared tag and collection (the two targets every read cell names). */
async function target(inside: boolean, shared = false): Promise<Target> {
  const n = serial++;
  const ok = async (path: string, json: unknown) => {
    const res = await trove.api(path, { method: "POST", json });
    if (res.status !== 200) throw new Error(`fixture ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  const itemUrl = `https://matrix.example.test/${inside ? "in" : "out"}/${n}`;
  const itemId = (await ok("/api/ingest", { url: itemUrl, html: articleHtml })).id;
  const tagSlug = (await ok("/api/tags", { name: `matrix ${n}` })).tag.slug;
  const collectionId = (await ok("/api/collections", { name: `matrix ${n}` })).collection.id;
  const tags = [...(inside ? [scopeTag] : []), tagSlug, ...(shared ? [sharedTag] : [])];
  const collectionIds = [...(inside ? [scopeCollection] : []), collectionId, ...(shared ? [sharedCollection] : [])];
  await ok(`/api/items/${itemId}`, { tags, collectionIds });
  const highlightId = (await ok(`/api/items/${itemId}/highlights`, { text: "Parsers turn text" })).highlight.id;
  const mediaId = (await ok(`/api/items/${itemId}/media`, { contentType: "image/png", dataBase64: png, alt: "pixel" })).media.id;
  const clientId = (await createClient(trove, { name: `matrix ${n}` })).id;
  const sessionId = (await ok("/api/session", { key: aliceKey })).session.id;
  // Port 9 (discard) on loopback: deliveries to it fail at once, and no test waits for them.
  const webhookId = (await ok("/api/webhooks", { url: `http://127.0.0.1:9/matrix/${n}` })).endpoint.id;
  const projectId = (await ok("/api/projects", { name: `matrix ${n}`, repositories: [`https://github.com/matrix/p${n}`] })).project.id;
  const noteId = (await ok("/api/notes", { title: `matrix ${n}`, bodyMarkdown: "# Matrix\nParsers", project: projectId })).note.id;
  const archivedNoteId = (await ok("/api/notes", { title: `archived ${n}` })).note.id;
  await ok(`/api/notes/${archivedNoteId}/archive`, { expectedRevision: 1 });
  const linkId = (await ok(`/api/notes/${noteId}/item-links`, { itemId })).link.id;
  const sourceId = (await ok("/api/sources", { type: "rss", feedUrl: `http://127.0.0.1:9/matrix/feed/${n}` })).source.id;
  const inboxId = (await ok("/api/sources", { type: "email_inbox" })).source.id;
  const exportId = (await ok("/api/exports", { format: "csv" })).export.id;
  const importId = (await ok("/api/imports", { file: Buffer.from(`title,url,time_added,tags,status\r\nM,https://matrix.example.test/import/${n},1600000000,,unread\r\n`).toString("base64") })).import.id;
  await eventually(async () => (await (await trove.api(`/api/exports/${exportId}`)).json()).export.status === "completed", 30_000);
  return { inside, sessionId, itemId, itemUrl, highlightId, mediaId, tagSlug, collectionId, clientId, webhookId, noteId, archivedNoteId, projectId, linkId, sourceId, inboxId, exportId, importId, n };
}

// ---- samples: one request per operation ------------------------------------------------------------------

interface Input {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

/** A cell that got the status expected of it, 200 or a refused save's 409: for the samples that check the answer too. */
interface Cell {
  role: Role;
  target: Target;
  status: number;
  text: string;
  /** A GET made with the cell's own credential. */
  get(path: string): Promise<{ status: number; text: string }>;
}

interface Sample {
  request: (t: Target) => Input;
  /**
   * What of alice's the request names: "item" (another account, and a scoped key when the item is outside its
   * scope, get 404), "resource" (not an item: another account gets 404). Unset: nothing of hers by id, so every
   * caller with the permission is allowed (a bulk action simply counts what it may touch). "job": an export or
   * import job alice's personal key started (another account and every scoped key get 404). "tag": one of her
   * tags (another account gets 404; a scoped key is tried on a tag inside its scope and on one only outside it).
   * "url": a save names a URL, new or (for a scoped key) an item's outside its scope: 409, and that item unchanged.
   */
  names?: "item" | "resource" | "job" | "tag" | "url";
  /** Checks the answer of a cell that got the expected status; answers what is wrong, if anything. */
  check?: (cell: Cell) => Promise<string | undefined>;
}

// ---- checks beyond the status ----------------------------------------------------------------------------

const copyMarker = "A copy sent through another key";
/** The page every save sends: on an item outside a scoped key's scope it must change nothing. */
const copyHtml = `<!doctype html><html><head><title>Copied page</title></head><body><article><h1>Copied page</h1><p>${`${copyMarker} would replace the saved page. `.repeat(6)}</p></article></body></html>`;

/** A save: the caller can read what it saved; a refused one names nothing of the item and leaves it as it was. */
async function checkSave(cell: Cell): Promise<string | undefined> {
  if (!cell.target.inside) {
    if (cell.text.includes(cell.target.itemId)) return `the refusal names the item outside the scope: ${cell.text.slice(0, 160)}`;
    const item = await (await trove.api(`/api/items/${cell.target.itemId}`)).json();
    if (item.timesAdded !== 1 || item.title === "Copied page" || String(item.contentMarkdown).includes(copyMarker)) {
      return `the owner's item outside the scope changed: timesAdded ${item.timesAdded}, title ${JSON.stringify(item.title)}`;
    }
    return undefined;
  }
  const id = JSON.parse(cell.text).id;
  const read = await cell.get(`/api/items/${id}`);
  return read.status === 200 ? undefined : `cannot read the item it saved: GET /api/items/${id} answered ${read.status}`;
}

/**
 * A list of tags or collections: a scoped key sees only what its items carry, counted over its items; alice's
 * whole-library credentials see everything (which shows the fixture holds what a scoped key must not see).
 */
function checkListed(kind: "tags" | "collections"): (cell: Cell) => Promise<string | undefined> {
  return async (cell) => {
    if (otherRoles.has(cell.role)) return undefined;
    const listed = JSON.parse(cell.text)[kind] as { id?: string; slug: string; itemCount?: number }[];
    const named = (want: string) => listed.find((e) => (kind === "tags" ? e.slug : e.id) === want);
    const both = named(kind === "tags" ? sharedTag : sharedCollection);
    const outside = named(kind === "tags" ? shared.outside.tagSlug : shared.outside.collectionId);
    const scoped = scopedRoles.has(cell.role);
    const count = scoped ? 1 : 2;
    if (both?.itemCount !== count) return `the ${kind} list counts ${both?.itemCount} items for the one on both targets, not ${count}`;
    if (scoped && outside) return `the ${kind} list names ${outside.slug}, which is only on an item outside the scope`;
    if (!scoped && !outside) return `the ${kind} list misses the one only on the item outside the scopes`;
    return undefined;
  };
}

/** Who is signed in: the email is the person's, told to her own credentials and to no client key. */
async function checkSession(cell: Cell): Promise<string | undefined> {
  const email = JSON.parse(cell.text).account.email;
  const want = aliceRoles.has(cell.role) ? aliceEmail : otherRoles.has(cell.role) ? "bob@example.test" : null;
  return email === want ? undefined : `account.email is ${JSON.stringify(email)}, not ${JSON.stringify(want)}`;
}

// ---- samples: one request per operation ------------------------------------------------------------------

const samples: Record<string, Sample> = {
  health: { request: () => ({}) },
  ping: { request: () => ({}) },
  me: { request: () => ({}) },
  stats: { request: () => ({ query: { since: "0" } }) },
  ingest: { request: (t) => ({ body: { url: t.inside ? `https://matrix.example.test/new/${t.n}` : t.itemUrl, html: copyHtml } }), names: "url", check: checkSave },
  listItems: { request: (t) => ({ query: { tags: t.tagSlug, limit: "10" } }) },
  searchItems: { request: (t) => ({ query: { q: "parsers", tags: t.tagSlug, limit: "10" } }) },
  getItem: { request: (t) => ({ params: { id: t.itemId } }), names: "item" },
  updateItem: { request: (t) => ({ params: { id: t.itemId }, body: { title: "Retitled" } }), names: "item" },
  archiveItems: { request: (t) => ({ body: { ids: [t.itemId] } }) },
  deleteItems: { request: (t) => ({ body: { ids: [t.itemId] } }) },
  markProcessed: { request: (t) => ({ body: { ids: [t.itemId] } }) },
  itemContent: { request: (t) => ({ params: { id: t.itemId } }), names: "item" },
  readItem: { request: (t) => ({ params: { id: t.itemId }, query: { lines: "1:5" } }), names: "item" },
  listMedia: { request: (t) => ({ params: { id: t.itemId } }), names: "item" },
  uploadMedia: { request: (t) => ({ params: { id: t.itemId }, body: { contentType: "image/png", dataBase64: png } }), names: "item" },
  getMedia: { request: (t) => ({ params: { id: t.itemId, mediaId: t.mediaId } }), names: "item" },
  listHighlights: { request: (t) => ({ params: { id: t.itemId } }), names: "item" },
  createHighlight: { request: (t) => ({ params: { id: t.itemId }, body: { text: "Parsers" } }), names: "item" },
  getHighlight: { request: (t) => ({ params: { id: t.highlightId } }), names: "item" },
  updateHighlight: { request: (t) => ({ params: { id: t.highlightId }, body: { note: "a note" } }), names: "item" },
  deleteHighlight: { request: (t) => ({ params: { id: t.highlightId } }), names: "item" },
  listTags: { request: () => ({}), check: checkListed("tags") },
  createTag: { request: (t) => ({ body: { name: `created ${t.n}` } }) },
  updateTag: { request: (t) => ({ params: { slug: t.tagSlug }, body: { name: "Renamed", description: "described" } }), names: "tag" },
  deleteTag: { request: (t) => ({ params: { slug: t.tagSlug } }), names: "tag" },
  listCollections: { request: () => ({}), check: checkListed("collections") },
  createCollection: { request: (t) => ({ body: { name: `created ${t.n}` } }) },
  feed: { request: () => ({ query: { limit: "10" } }) },
  itemChanges: { request: (t) => ({ query: { tags: t.tagSlug, limit: "10" } }) },
  createClient: { request: (t) => ({ body: { name: `matrix client ${t.n}` } }) },
  listClients: { request: () => ({}) },
  revokeClient: { request: (t) => ({ body: { id: t.clientId } }), names: "resource" },
  createSession: { request: () => ({ body: { key: aliceKey } }) },
  getSession: { request: () => ({}), check: checkSession },
  deleteSession: { request: () => ({}) },
  listSessions: { request: () => ({}) },
  revokeSession: { request: (t) => ({ body: { id: t.sessionId } }), names: "resource" },
  setPassword: { request: () => ({ body: { password: "a matrix passphrase", currentPassword: "a matrix passphrase" } }) },
  listWebhooks: { request: () => ({ query: { limit: "10" } }) },
  createWebhook: { request: (t) => ({ body: { url: `http://127.0.0.1:9/matrix/new/${t.n}` } }) },
  getWebhook: { request: (t) => ({ params: { id: t.webhookId } }), names: "resource" },
  updateWebhook: { request: (t) => ({ params: { id: t.webhookId }, body: { name: "renamed" } }), names: "resource" },
  deleteWebhook: { request: (t) => ({ params: { id: t.webhookId } }), names: "resource" },
  testWebhook: { request: (t) => ({ params: { id: t.webhookId } }), names: "resource" },
  rotateWebhookSecret: { request: (t) => ({ params: { id: t.webhookId } }), names: "resource" },
  listWebhookDeliveries: { request: (t) => ({ params: { id: t.webhookId } }), names: "resource" },
  listNotes: { request: () => ({ query: { limit: "10" } }) },
  createNote: { request: (t) => ({ body: { title: `matrix note ${t.n}` } }) },
  search: { request: () => ({ query: { q: "parsers" } }) },
  searchNotes: { request: () => ({ query: { q: "parsers" } }) },
  exportNotes: { request: () => ({}) },
  getNote: { request: (t) => ({ params: { id: t.noteId } }), names: "resource" },
  readNote: { request: (t) => ({ params: { id: t.noteId }, query: { view: "lines", lines: "1:2" } }), names: "resource" },
  updateNote: { request: (t) => ({ params: { id: t.noteId }, body: { expectedRevision: 1, state: "done" } }), names: "resource" },
  appendNote: { request: (t) => ({ params: { id: t.noteId }, body: { bodyMarkdown: "more" } }), names: "resource" },
  archiveNote: { request: (t) => ({ params: { id: t.noteId }, body: { expectedRevision: 1 } }), names: "resource" },
  restoreNote: { request: (t) => ({ params: { id: t.archivedNoteId }, body: { expectedRevision: 2 } }), names: "resource" },
  noteHistory: { request: (t) => ({ params: { id: t.noteId } }), names: "resource" },
  restoreNoteRevision: { request: (t) => ({ params: { id: t.noteId, revision: "1" }, body: { expectedRevision: 1 } }), names: "resource" },
  createNoteItemLink: { request: (t) => ({ params: { id: t.noteId }, body: { itemId: t.itemId, relation: "example" } }), names: "resource" },
  deleteNoteItemLink: { request: (t) => ({ params: { id: t.noteId, linkId: t.linkId } }), names: "resource" },
  noteContext: { request: (t) => ({ params: { id: t.noteId } }), names: "resource" },
  listProjects: { request: () => ({}) },
  getProject: { request: (t) => ({ params: { id: t.projectId } }), names: "resource" },
  createProject: { request: (t) => ({ body: { name: `matrix project ${t.n}` } }) },
  updateProject: { request: (t) => ({ params: { id: t.projectId }, body: { state: "paused" } }), names: "resource" },
  deleteProject: { request: (t) => ({ params: { id: t.projectId } }), names: "resource" },
  contextBrief: { request: (t) => ({ query: { project: `github.com/matrix/p${t.n}` } }) },
  listSources: { request: () => ({ query: { limit: "10" } }) },
  getSource: { request: (t) => ({ params: { id: t.sourceId } }), names: "resource" },
  createSource: { request: (t) => ({ body: { type: "rss", feedUrl: `http://127.0.0.1:9/matrix/new-feed/${t.n}` } }) },
  deleteSource: { request: (t) => ({ params: { id: t.sourceId } }), names: "resource" },
  pauseSource: { request: (t) => ({ params: { id: t.sourceId } }), names: "resource" },
  resumeSource: { request: (t) => ({ params: { id: t.sourceId } }), names: "resource" },
  updateSourceSettings: { request: (t) => ({ params: { id: t.sourceId }, body: { name: "renamed" } }), names: "resource" },
  setSourceDefaultTags: { request: (t) => ({ params: { id: t.sourceId }, body: { tags: ["feeds"] } }), names: "resource" },
  setSourceRollup: { request: (t) => ({ params: { id: t.sourceId }, body: { enabled: true } }), names: "resource" },
  listSourceEvents: { request: (t) => ({ params: { id: t.sourceId } }), names: "resource" },
  listSourceMessages: { request: (t) => ({ params: { id: t.inboxId } }), names: "resource" },
  getSourceConfirmation: { request: (t) => ({ params: { id: t.inboxId } }), names: "resource" },
  importOpml: { request: (t) => ({ body: { opml: `<opml version="2.0"><body><outline text="x" xmlUrl="http://127.0.0.1:9/matrix/opml/${t.n}"/></body></opml>` } }) },
  exportOpml: { request: () => ({}) },
  createExport: { request: () => ({ body: { format: "json" } }) },
  listExports: { request: () => ({ query: { limit: "10" } }) },
  getExport: { request: (t) => ({ params: { jobId: t.exportId } }), names: "job" },
  downloadExport: { request: (t) => ({ params: { jobId: t.exportId } }), names: "job" },
  createImport: { request: (t) => ({ body: { file: Buffer.from(`title,url,time_added,tags,status\r\nM,https://matrix.example.test/imported/${t.n},1600000000,,unread\r\n`).toString("base64") } }) },
  listImports: { request: () => ({ query: { limit: "10" } }) },
  getImport: { request: (t) => ({ params: { jobId: t.importId } }), names: "job" },
};

// ---- the expected cell ---------------------------------------------------------------------------------------

type Expected = 200 | 401 | 403 | 404 | 409;

function expected(role: Role, name: string, op: Operation, sample: Sample, outsideScope: boolean): Expected {
  // A write made with a live session cookie needs the session's CSRF token, whatever it asks; signing in is the
  // one exception (it makes a session rather than acting with one).
  if (noCsrfRoles.has(role) && op.method !== "GET" && name !== "createSession") return 403;
  if (op.permission === null) return 200;
  if (deadRoles.has(role)) return 401;
  if (clientRoles.has(role) && personalOnly.has(op.permission)) return 403;
  // A tag or collection scope confines a client to part of the library; notes, projects and sources are in no scope.
  if (scopedRoles.has(role) && /^(notes|projects|sources)\./.test(op.permission)) return 403;
  // An import writes tags and collections across the library; tags and collections are what scopes are made of.
  if (scopedRoles.has(role) && wholeLibrary.has(name)) return 403;
  // Starting an export is a POST that only reads.
  if (role === "readOnly" && ((op.method !== "GET" && !op.reads) || op.permission === "sources.write")) return 403;
  if (otherRoles.has(role) && sample.names && sample.names !== "url") return 404;
  // A scoped key sees only the jobs it started itself.
  if (scopedRoles.has(role) && sample.names === "job") return 404;
  // A save of a URL saved outside the scope is refused, and says nothing of the item.
  if (outsideScope) return sample.names === "url" ? 409 : 404;
  return 200;
}

async function send(op: Pick<Operation, "method" | "path">, input: Input, credential: Credential): Promise<{ status: number; text: string }> {
  const path = op.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(input.params?.[name] ?? ""));
  const query = new URLSearchParams(input.query ?? {}).toString();
  const headers: Record<string, string> = {};
  if (credential.cookie) headers.cookie = `trove_session=${credential.cookie}`;
  if (credential.csrf) headers["x-csrf-token"] = credential.csrf;
  const res = await trove.api(query ? `${path}?${query}` : path, { method: op.method, key: credential.key, json: input.body, headers });
  return { status: res.status, text: await res.text() };
}

// Targets that requests which change nothing may share; a request that is allowed to change things gets its own.
let shared: { inside: Target; outside: Target };

beforeAll(async () => {
  // Every target starts an export and an import: the open-job limit would refuse them.
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000", TROVE_MAX_OPEN_JOBS: "1000", TROVE_SIGN_IN_LIMIT: "1000000" });
  scopeCollection = (await (await trove.api("/api/collections", { method: "POST", json: { name: "Matrix scope" } })).json()).collection.id;
  sharedCollection = (await (await trove.api("/api/collections", { method: "POST", json: { name: "Matrix shared" } })).json()).collection.id;
  const revoked = await createClient(trove, { name: "revoked" });
  const gone = await trove.api("/api/connected-clients/revoke", { method: "POST", json: { id: revoked.id } });
  if (gone.status !== 200) throw new Error(`revoking answered ${gone.status}`);
  Object.assign(keys, {
    personal: aliceKey,
    readWrite: (await createClient(trove, { name: "rw" })).apiKey,
    readOnly: (await createClient(trove, { name: "ro", access: "read_only" })).apiKey,
    tagScoped: (await createClient(trove, { name: "tag", scope: { tagSlugs: [scopeTag] } })).apiKey,
    collectionScoped: (await createClient(trove, { name: "collection", scope: { collectionId: scopeCollection } })).apiKey,
    otherAccount: bobKey,
    revoked: revoked.apiKey,
    noKey: null,
  });
  shared = { inside: await target(true, true), outside: await target(false, true) };
}, 120_000);
afterAll(() => trove.stop());

describe("authorization matrix: every kind of credential against every operation of the contract", () => {
  test("every operation of the contract has a sample request, and every sample an operation", () => {
    const missing = Object.keys(operations).filter((name) => !samples[name]);
    const stale = Object.keys(samples).filter((name) => !(name in operations));
    expect({ missing, stale }).toEqual({ missing: [], stale: [] });
  });

  for (const [name, op] of Object.entries(operations) as [string, Operation][]) {
    test(`${name} (${op.method} ${op.path}, ${op.permission ?? "no permission"})`, async () => {
      const sample = samples[name];
      if (!sample) throw new Error(`operation ${name} has no sample request in services/gateway/test/authorization.test.ts: add one to \`samples\``);
      const wrong: string[] = [];
      for (const role of roles) {
        const twoSided = sample.names === "item" || sample.names === "url" || sample.names === "tag";
        const placements = scopedRoles.has(role) && twoSided ? [false, true] : [false];
        for (const outside of placements) {
          const want = expected(role, name, op, sample, outside);
          // A request that may change things works on targets of its own, so no cell sees another's changes.
          const changes = op.method !== "GET" && (want === 200 || outside);
          const t = changes ? await target(!outside) : outside ? shared.outside : shared.inside;
          const cred = await credential(role);
          const got = await send(op, sample.request(t), cred);
          const cell = `${role}${outside ? " (outside its scope)" : ""}`;
          if (got.status !== want) {
            wrong.push(`${cell}: expected ${want}, got ${got.status} ${got.text.slice(0, 160)}`);
            continue;
          }
          if (want !== 200 && want !== 409) continue;
          const get = (path: string) => send({ method: "GET", path }, {}, cred);
          const problem = await sample.check?.({ role, target: t, status: got.status, text: got.text, get });
          if (problem) wrong.push(`${cell}: ${problem}`);
        }
      }
      expect(wrong).toEqual([]);
    }, 180_000);
  }
});
