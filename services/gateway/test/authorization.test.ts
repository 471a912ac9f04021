// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP.
// Who may call what: every role against every operation of the contract, each cell's status asserted.
//   401: a revoked key, or none (on every operation that needs a credential);
//   403: a missing permission: client keys on the personal-only permissions, read-only keys on anything but GET
//        and on source settings, scoped keys on notes and projects;
//   404: another account's resource, or an item outside a scoped key's scope (never 403);
//   otherwise allowed: 200.
// The table of sample requests is keyed by operation name: an operation added to the contract without a sample
// here fails the test by name, so the matrix grows with the contract.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { operations, type Operation } from "@trove/contracts";
import { aliceKey, articleHtml, bobKey, createClient, eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;

// ---- roles -----------------------------------------------------------------------------------------------

const roles = ["personal", "readWrite", "readOnly", "tagScoped", "collectionScoped", "otherAccount", "revoked", "noKey"] as const;
type Role = (typeof roles)[number];
const clientRoles = new Set<Role>(["readWrite", "readOnly", "tagScoped", "collectionScoped"]);
const scopedRoles = new Set<Role>(["tagScoped", "collectionScoped"]);
/** Permissions only a personal key has (the spec: credentials, the change stream, webhook management). */
const personalOnly = new Set(["clients.manage", "webhooks.manage", "changes.read", "sources.write"]);

const keys = {} as Record<Role, string | null>;
const scopeTag = "matrix-scope";
let scopeCollection = "";

// ---- fixtures: alice's resources -------------------------------------------------------------------------

const png = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e2a4a20000000049454e44ae426082",
  "hex",
).toString("base64");

/** Alice's resources a request names; the item is inside both scopes, or outside them both. */
interface Target {
  sessionId: string;
  itemId: string;
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
async function target(inside: boolean): Promise<Target> {
  const n = serial++;
  const ok = async (path: string, json: unknown) => {
    const res = await trove.api(path, { method: "POST", json });
    if (res.status !== 200) throw new Error(`fixture ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  const itemId = (await ok("/api/ingest", { url: `https://matrix.example.test/${inside ? "in" : "out"}/${n}`, html: articleHtml })).id;
  const tagSlug = (await ok("/api/tags", { name: `matrix ${n}` })).tag.slug;
  const collectionId = (await ok("/api/collections", { name: `matrix ${n}` })).collection.id;
  await ok(`/api/items/${itemId}`, inside ? { tags: [scopeTag, tagSlug], collectionIds: [scopeCollection, collectionId] } : { tags: [tagSlug], collectionIds: [collectionId] });
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
  return { sessionId, itemId, highlightId, mediaId, tagSlug, collectionId, clientId, webhookId, noteId, archivedNoteId, projectId, linkId, sourceId, inboxId, exportId, importId, n };
}

// ---- samples: one request per operation ------------------------------------------------------------------

interface Input {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

interface Sample {
  request: (t: Target) => Input;
  /**
   * What of alice's the request names: "item" (another account, and a scoped key when the item is outside its
   * scope, get 404), "resource" (not an item: another account gets 404). Unset: nothing of hers by id, so every
   * caller with the permission is allowed (a bulk action simply counts what it may touch). "job": an export or
   * import job alice's personal key started (another account and every scoped key get 404).
   */
  names?: "item" | "resource" | "job";
}

const samples: Record<string, Sample> = {
  health: { request: () => ({}) },
  ping: { request: () => ({}) },
  me: { request: () => ({}) },
  stats: { request: () => ({ query: { since: "0" } }) },
  ingest: { request: (t) => ({ body: { url: `https://matrix.example.test/new/${t.n}`, html: articleHtml } }) },
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
  listTags: { request: () => ({}) },
  createTag: { request: (t) => ({ body: { name: `created ${t.n}` } }) },
  updateTag: { request: (t) => ({ params: { slug: t.tagSlug }, body: { description: "described" } }), names: "resource" },
  deleteTag: { request: (t) => ({ params: { slug: t.tagSlug } }), names: "resource" },
  listCollections: { request: () => ({}) },
  createCollection: { request: (t) => ({ body: { name: `created ${t.n}` } }) },
  feed: { request: () => ({ query: { limit: "10" } }) },
  itemChanges: { request: (t) => ({ query: { tags: t.tagSlug, limit: "10" } }) },
  createClient: { request: (t) => ({ body: { name: `matrix client ${t.n}` } }) },
  listClients: { request: () => ({}) },
  revokeClient: { request: (t) => ({ body: { id: t.clientId } }), names: "resource" },
  createSession: { request: () => ({ body: { key: aliceKey } }) },
  getSession: { request: () => ({}) },
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

type Expected = 200 | 401 | 403 | 404;

function expected(role: Role, op: Operation, sample: Sample, outsideScope: boolean): Expected {
  if (op.permission === null) return 200;
  if (role === "revoked" || role === "noKey") return 401;
  if (clientRoles.has(role) && personalOnly.has(op.permission)) return 403;
  // A tag or collection scope confines a client to part of the library; notes, projects and sources are in no scope.
  if (scopedRoles.has(role) && /^(notes|projects|sources)\./.test(op.permission)) return 403;
  // An import writes tags and collections across the library.
  if (scopedRoles.has(role) && op.wholeLibrary) return 403;
  // Starting an export is a POST that only reads.
  if (role === "readOnly" && ((op.method !== "GET" && !op.reads) || op.permission === "sources.write")) return 403;
  if (role === "otherAccount" && sample.names) return 404;
  // A scoped key sees only the jobs it started itself.
  if (scopedRoles.has(role) && sample.names === "job") return 404;
  if (outsideScope) return 404;
  return 200;
}

async function send(op: Operation, input: Input, key: string | null): Promise<{ status: number; text: string }> {
  const path = op.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(input.params?.[name] ?? ""));
  const query = new URLSearchParams(input.query ?? {}).toString();
  const res = await trove.api(query ? `${path}?${query}` : path, { method: op.method, key, json: input.body });
  return { status: res.status, text: await res.text() };
}

// Targets that requests which change nothing may share; a request that is allowed to change things gets its own.
let shared: { inside: Target; outside: Target };

beforeAll(async () => {
  // Every target starts an export and an import: the open-job limit would refuse them.
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000", TROVE_MAX_OPEN_JOBS: "1000", TROVE_SIGN_IN_LIMIT: "1000000" });
  scopeCollection = (await (await trove.api("/api/collections", { method: "POST", json: { name: "Matrix scope" } })).json()).collection.id;
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
  } satisfies Record<Role, string | null>);
  shared = { inside: await target(true), outside: await target(false) };
}, 120_000);
afterAll(() => trove.stop());

describe("authorization matrix: every role against every operation of the contract", () => {
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
        const placements = scopedRoles.has(role) && sample.names === "item" ? [false, true] : [false];
        for (const outside of placements) {
          const want = expected(role, op, sample, outside);
          // A request allowed to change things works on targets of its own, so no cell sees another's changes.
          const changes = want === 200 && op.method !== "GET";
          const t = changes ? await target(true) : outside ? shared.outside : shared.inside;
          const got = await send(op, sample.request(t), keys[role]);
          if (got.status !== want) wrong.push(`${role}${outside ? " (item outside its scope)" : ""}: expected ${want}, got ${got.status} ${got.text.slice(0, 160)}`);
        }
      }
      expect(wrong).toEqual([]);
    }, 120_000);
  }
});
