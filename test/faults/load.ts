// The kill suite's load and its checks, shared by both deployments. The load is a bounded count of operations
// driven from this process over HTTP and SMTP (saves with `html`, saves of local pages that answer slowly so
// their captures run in the background, tag changes and tag deletions, note appends, webhook endpoints, mail to
// an inbox source); faults are injected when the load has made given progress. A write counts as acknowledged
// only when it was answered 2xx (mail: 250). Afterwards the deployment is left to settle and everything
// acknowledged is looked for; what is missing is listed as lost.
import { aliceKey, articleHtml, type WebhookReceiver } from "@trove/testing";
import { sql, type Kysely } from "kysely";
import nodemailer from "nodemailer";

const log = (line: string) => console.log(`[faults] ${line}`);

/** A deployment under test, as the load sees it. */
export interface Target {
  url: string;
  smtpPort: number;
  /** Resolves once the deployment answers as healthy again (it may be down for a fault right now). */
  up(): Promise<void>;
}

export interface Reply {
  status: number;
  body: any;
}

/** One HTTP call as a client makes it; a refused connection, a reset or no answer within 30 s is status 0. */
export async function call(url: string, path: string, init: { method?: string; json?: unknown; key?: string | null } = {}): Promise<Reply> {
  const { method = init.json === undefined ? "GET" : "POST", json, key = aliceKey } = init;
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (json !== undefined) headers["content-type"] = "application/json";
  try {
    const res = await fetch(url + path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json), signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    let body: any = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    return { status: res.status, body };
  } catch (err) {
    return { status: 0, body: (err as Error).message };
  }
}

const ok = (r: Reply) => r.status >= 200 && r.status < 300;

/** Words of letters only (so every tokenizer keeps them whole), unique within a run. */
function wordMaker(prefix: string) {
  let n = 0;
  return () => {
    let i = n++;
    let s = "";
    do {
      s = String.fromCharCode(97 + (i % 26)) + s;
      i = Math.floor(i / 26);
    } while (i > 0);
    return `${prefix}${s.padStart(3, "a")}`;
  };
}

const pageOf = (word: string) => articleHtml.replaceAll("Parsing Things Well", `Fault ${word} article`);

/** A local site whose pages answer after a while, so that a save of one cannot wait for its capture. */
export function startSlowPages(holdMs = 1_500) {
  let inFlight = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const word = new URL(req.url).pathname.split("/").pop() ?? "";
      inFlight++;
      try {
        await Bun.sleep(holdMs); // the peer's own slowness, not a wait of the test's
        return new Response(pageOf(word), { headers: { "content-type": "text/html; charset=utf-8" } });
      } finally {
        inFlight--;
      }
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    get inFlight() {
      return inFlight;
    },
    stop: () => server.stop(true),
  };
}

export type SlowPages = ReturnType<typeof startSlowPages>;

/** A fault: what it does, and when (the fraction of the load attempted). */
export interface Fault {
  name: string;
  at: number;
  run(): Promise<void>;
}

export interface LoadSize {
  htmlSaves: number;
  slowSaves: number;
  tagWrites: number;
  tagDeletes: number;
  appends: number;
  mails: number;
  /** Endpoints registered while the load runs (two more are registered before it). */
  endpoints: number;
}

/** The load both deployments run. */
export const loadSize: LoadSize = { htmlSaves: 30, slowSaves: 15, tagWrites: 30, tagDeletes: 5, appends: 30, mails: 15, endpoints: 2 };

/** The settings both deployments run with, beside the mail listener's port. */
export const faultEnv: Record<string, string> = {
  TROVE_RATE_LIMIT: "100000",
  // A save whose page answers slowly certainly takes the background path.
  TROVE_INGEST_WAIT_MS: "50",
  // A killed process's claimed jobs come back soon after its restart.
  TROVE_JOB_LEASE_MS: "5000",
  TROVE_WEBHOOK_RETRY_DELAYS: "0.5,0.5,1,1",
  TROVE_WEBHOOK_TIMEOUT_MS: "5000",
  TROVE_WEBHOOK_DISABLE_AFTER: "100000",
  // Semantic search on: the local embedding model runs on each process's worker pool.
  TROVE_SEMANTIC: "on",
};

interface Saved {
  id: string;
  word: string;
  how: "html" | "slow" | "tags" | "tag-delete";
}

interface TagWrite {
  itemId: string;
  tags: string[];
  acked: boolean;
}

interface TagDeletion {
  itemId: string;
  noteId: string;
  gone: string;
  stay: string;
  /** The item's tags were set (acknowledged) before the deletion. */
  setAcked: boolean;
  acked: boolean;
}

interface Endpoint {
  id: string;
  path: string;
  eventTypes: string[];
  /** Events recorded after this moment must reach it. */
  since: number;
}

interface Mail {
  word: string;
  acked: boolean;
}

export interface LoadRecord {
  saved: Saved[];
  tagWrites: TagWrite[];
  tagDeletions: TagDeletion[];
  notes: Map<string, string[]>;
  endpoints: Endpoint[];
  mails: Mail[];
  sourceId: string;
  attempted: number;
  acknowledged: number;
  faults: string[];
}

/** Keeps trying a setup call until it is acknowledged (the deployment may be down for a fault). */
async function until(target: Target, what: string, attempt: () => Promise<Reply>): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const r = await attempt();
    if (ok(r)) return r.body;
    if (r.status >= 400 && r.status < 500 && r.status !== 429) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    await target.up();
  }
  throw new Error(`${what} was never acknowledged`);
}

async function sendMail(port: number, mail: Parameters<ReturnType<typeof nodemailer.createTransport>["sendMail"]>[0]): Promise<boolean> {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, pool: false, connectionTimeout: 30_000, socketTimeout: 30_000 });
  try {
    await transport.sendMail({ from: "Fault Letters <news@letters.example>", ...mail });
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs the load against `target` with `faults` injected along the way; resolves what was attempted and acknowledged.
 * Faults run one at a time, each when the load has attempted its share (`at`) of all operations.
 */
export async function runLoad(target: Target, receiver: WebhookReceiver, slow: SlowPages, size: LoadSize, faults: Fault[]): Promise<LoadRecord> {
  const word = wordMaker("fk");
  const rec: LoadRecord = { saved: [], tagWrites: [], tagDeletions: [], notes: new Map(), endpoints: [], mails: [], sourceId: "", attempted: 0, acknowledged: 0, faults: [] };
  const total = size.htmlSaves + size.slowSaves + size.tagWrites + size.tagDeletes * 4 + size.appends + size.mails + size.endpoints;
  const api = (path: string, init?: Parameters<typeof call>[2]) => call(target.url, path, init);

  const registerEndpoint = async (eventTypes: string[]) => {
    const path = `/hook/${rec.endpoints.length}`;
    const r = await api("/api/webhooks", { json: { url: `${receiver.url}${path}`, eventTypes } });
    // Events recorded from now on were recorded after the endpoint was committed.
    return ok(r) ? { id: r.body.endpoint.id as string, path, eventTypes, since: Date.now() } : undefined;
  };
  // Before the load: an inbox and two endpoints (every event; creations and taggings only).
  rec.sourceId = (await until(target, "create the inbox", () => api("/api/sources", { json: { type: "email_inbox", name: "Fault letters" } }))).source.id;
  const inbox = (await until(target, "read the inbox", () => api(`/api/sources/${rec.sourceId}`))).source.inboxAddress as string;
  for (const types of [["*"], ["item.created", "item.tagged"]]) {
    for (;;) {
      const e = await registerEndpoint(types);
      if (e) {
        rec.endpoints.push(e);
        break;
      }
      await target.up();
    }
  }

  // Progress drives the faults: each waits for its share of the load, then runs while the load goes on.
  let fraction = 0;
  let done = false;
  const waiters: { at: number; resolve: () => void }[] = [];
  const wake = () => {
    for (const w of waiters.filter((w) => fraction >= w.at || done)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  // The load does not run ahead of the faults: an operation waits while a fault due more than `lead` of the load
  // ago is still being injected (a restart takes a while), so that faults fall across the whole load.
  const lead = 0.04;
  let injecting: { at: number; finished: Promise<void> } | undefined;
  const step = async <T>(op: () => Promise<T>, acked: (r: T) => boolean): Promise<T> => {
    while (injecting && fraction > injecting.at + lead) await injecting.finished;
    const r = await op();
    rec.attempted++;
    fraction = rec.attempted / total;
    wake();
    if (acked(r)) rec.acknowledged++;
    else await target.up();
    return r;
  };
  const reached = (at: number) =>
    new Promise<void>((resolve) => {
      waiters.push({ at, resolve });
      wake();
    });
  const injector = (async () => {
    for (const f of faults) {
      await reached(f.at);
      const started = rec.attempted;
      const finished = f.run();
      injecting = { at: f.at, finished: finished.then(() => {}, () => {}) };
      await finished.finally(() => (injecting = undefined));
      rec.faults.push(f.name);
      log(`fault "${f.name}" injected at ${started} of ${total} operations`);
    }
  })();

  const save = async (how: Saved["how"], w: string, body: Record<string, unknown>) => {
    const r = await step(() => api("/api/ingest", { json: body }), ok);
    if (ok(r)) rec.saved.push({ id: r.body.id, word: w, how });
    return ok(r) ? (r.body.id as string) : undefined;
  };

  const lanes: Promise<void>[] = [];
  lanes.push(
    (async () => {
      for (let i = 0; i < size.htmlSaves; i++) {
        const w = word();
        await save("html", w, { url: `https://fault.example.invalid/html/${w}`, html: pageOf(w) });
      }
    })(),
  );
  lanes.push(
    (async () => {
      for (let i = 0; i < size.slowSaves; i++) {
        const w = word();
        await save("slow", w, { url: `${slow.url}/slow/${w}` });
      }
    })(),
  );
  lanes.push(
    (async () => {
      // Three items of this lane's own; each write sets an item's whole tag list: one tag more, or one fewer.
      const items: { id: string; tags: string[] }[] = [];
      for (let i = 0; i < 3; i++) {
        const w = word();
        const body = await until(target, "save an item to tag", () => api("/api/ingest", { json: { url: `https://fault.example.invalid/tags/${w}`, html: pageOf(w) } }));
        rec.saved.push({ id: body.id, word: w, how: "tags" });
        items.push({ id: body.id, tags: [] });
      }
      for (let i = 0; i < size.tagWrites; i++) {
        const item = items[i % items.length]!;
        const tags = i % 3 === 2 && item.tags.length > 0 ? item.tags.slice(1) : [...item.tags, `t${word()}`];
        item.tags = tags;
        const r = await step(() => api(`/api/items/${item.id}`, { json: { tags } }), ok);
        rec.tagWrites.push({ itemId: item.id, tags: [...tags].sort(), acked: ok(r) });
      }
    })(),
  );
  lanes.push(
    (async () => {
      // An item and a note carry a tag that is then deleted everywhere.
      for (let i = 0; i < size.tagDeletes; i++) {
        const w = word();
        const gone = `gone${w}`;
        const stay = `stay${w}`;
        const id = await save("tag-delete", w, { url: `https://fault.example.invalid/gone/${w}`, html: pageOf(w) });
        const set = id ? await step(() => api(`/api/items/${id}`, { json: { tags: [gone, stay] } }), ok) : undefined;
        const note = await step(() => api("/api/notes", { json: { title: `Tagged ${w}`, bodyMarkdown: w, tags: [gone] } }), ok);
        const del = await step(() => api(`/api/tags/${gone}`, { method: "DELETE" }), ok);
        if (id && ok(note)) rec.tagDeletions.push({ itemId: id, noteId: note.body.note.id, gone, stay, setAcked: set !== undefined && ok(set), acked: ok(del) });
      }
    })(),
  );
  lanes.push(
    (async () => {
      const ids: string[] = [];
      for (let n = 0; n < 2; n++) {
        const body = await until(target, "create a note", () => api("/api/notes", { json: { title: `Appended ${n}`, bodyMarkdown: "start" } }));
        ids.push(body.note.id);
        rec.notes.set(body.note.id, []);
      }
      for (let i = 0; i < size.appends; i++) {
        const id = ids[i % ids.length]!;
        const line = `line ${word()}`;
        const r = await step(() => api(`/api/notes/${id}/append`, { json: { bodyMarkdown: line, clientRequestId: crypto.randomUUID() } }), ok);
        if (ok(r)) rec.notes.get(id)!.push(line);
      }
    })(),
  );
  lanes.push(
    (async () => {
      for (let i = 0; i < size.mails; i++) {
        const w = word();
        const acked = await step(
          () =>
            sendMail(target.smtpPort, {
              to: inbox,
              subject: `Letter ${w}`,
              html: `<p><a href="https://letters.example.invalid/issues/${w}">View this email in your browser</a></p><h1>Letter ${w}</h1><p>News of the week: ${w}.</p>`,
              messageId: `<${w}@letters.example>`,
            }),
          (sent) => sent,
        );
        rec.mails.push({ word: w, acked });
      }
    })(),
  );
  lanes.push(
    (async () => {
      for (let i = 0; i < size.endpoints; i++) {
        await reached((i + 1) / (size.endpoints + 1));
        const e = await step(() => registerEndpoint(i % 2 === 0 ? ["*"] : ["item.tagged", "item.untagged"]), (e) => e !== undefined);
        if (e) rec.endpoints.push(e);
      }
    })(),
  );
  await Promise.all(lanes);
  done = true;
  wake();
  await injector;
  log(`load done: ${rec.acknowledged} of ${rec.attempted} operations acknowledged`);
  return rec;
}

/** Health as the gateway reports it, or undefined while it does not answer. */
async function health(url: string): Promise<Record<string, any> | undefined> {
  const r = await call(url, "/api/health", { key: null });
  return r.status === 200 || r.status === 503 ? r.body : undefined;
}

/** True when every service is up, every queue has nothing waiting or running, and every consumer is caught up. */
function settled(h: Record<string, any> | undefined): boolean {
  if (!h || h.status !== "ok") return false;
  for (const s of Object.values(h.services ?? {}) as any[]) {
    if (!s.ok) return false;
    if (s.queue && (s.queue.queued > 0 || s.queue.running > 0 || s.queue.due > 0 || s.queue.leaseExpired > 0)) return false;
    if (s.events && s.events.lag > 0) return false;
  }
  return true;
}

/** Waits (polling) until the deployment has nothing left to do; fails with the last health seen. */
export async function waitUntilSettled(url: string, ms = 300_000): Promise<Record<string, any>> {
  const deadline = Date.now() + ms;
  let last: Record<string, any> | undefined;
  for (;;) {
    last = await health(url);
    if (settled(last)) {
      log(`settled after ${ms - (deadline - Date.now())} ms`);
      return last!;
    }
    if (Date.now() > deadline) throw new Error(`the deployment did not settle within ${ms} ms; last health: ${JSON.stringify(last)}`);
    await Bun.sleep(250);
  }
}

export interface Figures {
  writesAttempted: number;
  writesAcknowledged: number;
  items: number;
  events: number;
  deliveries: number;
  faults: number;
  lost: number;
}

async function must(url: string, path: string): Promise<any> {
  const r = await call(url, path);
  if (!ok(r)) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/**
 * Everything acknowledged, looked for once the deployment has settled. Resolves the figures and what is lost
 * (empty when nothing is).
 */
export async function verify(url: string, rec: LoadRecord, receiver: WebhookReceiver, opts: { semantic: boolean }): Promise<{ figures: Figures; lost: string[]; noteRevisions: Map<string, number> }> {
  const lost: string[] = [];

  // The change stream, walked from its start: every event once.
  const events: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await must(url, `/api/items/changes?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    events.push(...page.events);
    cursor = page.nextCursor;
    if (!page.hasMore) break;
  }
  const seen = new Set<string>();
  for (const e of events) {
    if (seen.has(e.id)) lost.push(`event ${e.id} (${e.type}) is in the change stream twice`);
    seen.add(e.id);
  }
  const byItem = new Map<string, any[]>();
  for (const e of events) byItem.set(e.itemId, [...(byItem.get(e.itemId) ?? []), e]);

  // Every item: present, its capture ended (content or an error), a creation event, found by lexical search.
  const items = new Map<string, any>();
  for (let offset = 0; ; offset += 1000) {
    const page = await must(url, `/api/items?limit=1000&offset=${offset}`);
    for (const i of page.items) items.set(i.id, i);
    if (page.items.length < 1000) break;
  }
  for (const s of rec.saved) if (!items.has(s.id)) lost.push(`saved item ${s.id} (${s.how} ${s.word}) is missing`);
  for (const item of items.values()) {
    if (!item.contentAvailable && !item.contentExtractError) lost.push(`item ${item.id} (${item.url}) has neither content nor a contentExtractError`);
    if (!(byItem.get(item.id) ?? []).some((e) => e.type === "item.created")) lost.push(`item ${item.id} has no item.created event`);
  }

  // Tags: an item's tags are those of its last acknowledged write or of a later (unanswered) one; an acknowledged
  // write that followed an acknowledged one changed the tags, so it has its event.
  const writesByItem = new Map<string, TagWrite[]>();
  for (const w of rec.tagWrites) writesByItem.set(w.itemId, [...(writesByItem.get(w.itemId) ?? []), w]);
  for (const [itemId, writes] of writesByItem) {
    const lastAcked = writes.findLastIndex((w) => w.acked);
    const have = [...(items.get(itemId)?.tagSlugs ?? [])].sort();
    const allowed = writes.slice(Math.max(lastAcked, 0)).map((w) => w.tags.join(","));
    if (lastAcked >= 0 && !allowed.includes(have.join(","))) lost.push(`item ${itemId} has tags [${have}], not those of its last acknowledged write [${writes[lastAcked]!.tags}]`);
    const after = (byItem.get(itemId) ?? []).map((e) => [...(e.afterScope?.tagSlugs ?? [])].sort().join(","));
    writes.forEach((w, i) => {
      if (w.acked && (i === 0 || writes[i - 1]!.acked) && !after.includes(w.tags.join(","))) lost.push(`item ${itemId}: no event for the acknowledged tag write [${w.tags}]`);
    });
  }
  // Tag deletions: gone from the item and the note; the item's removal has its event.
  for (const d of rec.tagDeletions.filter((d) => d.acked)) {
    const item = items.get(d.itemId);
    if (item?.tagSlugs.includes(d.gone)) lost.push(`deleted tag ${d.gone} is still on item ${d.itemId}`);
    const note = await must(url, `/api/notes/${d.noteId}`);
    if (note.note.tags.includes(d.gone)) lost.push(`deleted tag ${d.gone} is still on note ${d.noteId}`);
    if (d.setAcked && !(byItem.get(d.itemId) ?? []).some((e) => e.type === "item.untagged" && !e.afterScope.tagSlugs.includes(d.gone) && (e.beforeScope?.tagSlugs ?? []).includes(d.gone))) {
      lost.push(`item ${d.itemId}: no item.untagged event for the deleted tag ${d.gone}`);
    }
  }

  // Notes: every acknowledged append is in the body.
  const noteRevisions = new Map<string, number>();
  for (const [id, lines] of rec.notes) {
    const note = (await must(url, `/api/notes/${id}`)).note;
    noteRevisions.set(id, note.currentRevision);
    const body: string = note.bodyMarkdown;
    for (const line of lines) if (!body.includes(line)) lost.push(`note ${id} lacks the acknowledged append "${line}"`);
  }

  // Webhooks: every event reached every endpoint it matches at least once (counted by webhook-id).
  const deliveredIds = new Map<string, Set<string>>(); // path + event id -> webhook-ids
  for (const got of receiver.received) {
    const body = JSON.parse(got.body);
    const key = `${got.path} ${body.data?.eventId}`;
    deliveredIds.set(key, (deliveredIds.get(key) ?? new Set()).add(got.headers["webhook-id"]!));
  }
  const webhookIds = new Set(receiver.received.map((r) => r.headers["webhook-id"]));
  for (const ep of rec.endpoints) {
    const matching = events.filter((e) => e.changedAt > ep.since && (ep.eventTypes.includes("*") || ep.eventTypes.includes(e.type)));
    const missing = matching.filter((e) => !deliveredIds.has(`${ep.path} ${e.id}`));
    if (missing.length > 0) lost.push(`endpoint ${ep.path} did not receive ${missing.length} of ${matching.length} events, e.g. ${missing[0].id} (${missing[0].type})`);
  }

  // Mail answered 250: an item, or a failure listed with its reason.
  const messages: any[] = [];
  for (let offset = 0; ; offset += 200) {
    const page = await must(url, `/api/sources/${rec.sourceId}/messages?limit=200&offset=${offset}`);
    messages.push(...page.messages);
    if (page.messages.length < 200) break;
  }
  for (const m of rec.mails.filter((m) => m.acked)) {
    const listed = messages.filter((x) => x.subject === `Letter ${m.word}`);
    if (listed.length === 0) lost.push(`mail "Letter ${m.word}" answered 250 is not listed`);
    else if (!listed.some((x) => (x.status === "added" && items.has(x.itemId)) || (x.status === "failed" && x.error))) lost.push(`mail "Letter ${m.word}" is listed as ${JSON.stringify(listed)}`);
  }

  // Search: every acknowledged save and every added mail is found by its word.
  const findable = [
    ...rec.saved.map((s) => ({ id: s.id, word: s.word })),
    ...rec.mails.filter((m) => m.acked).flatMap((m) => messages.filter((x) => x.subject === `Letter ${m.word}` && x.itemId).map((x) => ({ id: x.itemId as string, word: m.word }))),
  ];
  const modes = opts.semantic ? ["lexical", "semantic"] : ["lexical"];
  for (const mode of modes) {
    for (const f of findable) {
      const r = await must(url, `/api/items/search?q=${encodeURIComponent(f.word)}&mode=${mode}&limit=1000`);
      if (!r.items.some((i: any) => i.id === f.id)) {
        const item = items.get(f.id);
        const seen = `title ${JSON.stringify(item?.title)}, url ${item?.url}, content ${item?.contentAvailable ? "yes" : JSON.stringify(item?.contentExtractError)}`;
        lost.push(`${mode} search for ${f.word} does not find item ${f.id} (${seen}; it found ${r.items.length}: ${r.items.slice(0, 3).map((i: any) => i.title).join(" | ")})`);
      }
    }
  }

  const figures: Figures = {
    writesAttempted: rec.attempted,
    writesAcknowledged: rec.acknowledged,
    items: items.size,
    events: events.length,
    deliveries: webhookIds.size,
    faults: rec.faults.length,
    lost: lost.length,
  };
  return { figures, lost, noteRevisions };
}

/**
 * What only the database shows, read once the deployment has settled (embedded: after it stopped): no job left
 * claimed, and every note revision has exactly one event in the log.
 */
export async function verifyDatabase(db: Kysely<any>, noteRevisions: Map<string, number>): Promise<string[]> {
  const lost: string[] = [];
  const { rows: queues } = await sql<{ schema: string }>`
    select table_schema as schema from information_schema.tables where table_name = 'queue' order by 1`.execute(db);
  for (const { schema } of queues) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.id(schema, "queue")} where state = 'running'`.execute(db);
    if (rows[0]!.n > 0) lost.push(`${rows[0]!.n} jobs of ${schema} are left running`);
  }
  const { rows: twice } = await sql<{ note: string; revision: number; n: number }>`
    select data->>'noteId' as note, (data->>'revision')::int as revision, count(*)::int as n from eventlog.events
     where stream = 'notes' group by 1, 2 having count(*) > 1`.execute(db);
  for (const t of twice) lost.push(`note ${t.note} revision ${t.revision} has ${t.n} events`);
  for (const [id, revision] of noteRevisions) {
    const { rows } = await sql<{ n: number }>`
      select count(distinct (data->>'revision'))::int as n from eventlog.events where stream = 'notes' and data->>'noteId' = ${id}`.execute(db);
    if (rows[0]!.n !== revision) lost.push(`note ${id} is at revision ${revision} but the log has events for ${rows[0]!.n} revisions`);
  }
  return lost;
}
