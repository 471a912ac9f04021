// The secured bus: nats-server runs deploy/nats/nats.conf (one user per Trove process kind, each allowed only its
// subjects). A client without credentials is refused; another service's credentials cannot send a request of a
// public operation, answer in a service's place, or read the event stream; the gateway's can. Then a real Trove
// runs under that file, every service its own process signed in as its own user (and `bun run start` as the user
// `trove`), and saves, reads, searches, links notes, exports, imports, polls a feed and delivers a webhook, while
// the server's log and every process's output are watched: one refusal anywhere fails the run, so the file is
// complete for what Trove does. Apart from the file: a credentials file (NATS_CREDS) signs in to a server set up
// for NATS's decentralized authentication.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { AckPolicy, jetstreamManager } from "@nats-io/jetstream";
import { nkeys, type NatsConnection } from "@nats-io/nats-core";
import type { NatsAccess } from "@trove/bus";
import { NatsBus } from "@trove/bus/nats.ts";
import { connectNats } from "@trove/bus/connect.ts";
import { natsConfigPath, natsUsers, passwordVariable, type NatsUser } from "@trove/cluster";
import { createLogger } from "@trove/log";
import {
  aliceKey,
  articleHtml,
  createScratchDatabase,
  dropScratchDatabase,
  eventually,
  freePort,
  natsServerBinary,
  processEnv,
  repoRoot,
  serviceNames,
  startNatsServer,
  startWebhookReceiver,
  waitForHealth,
  type NatsServer,
} from "@trove/testing";
import { feedServer, rss2 } from "../../services/sources/test/feeds.ts";

type User = NatsUser;
const passwords = Object.fromEntries(natsUsers.map((u) => [u, `pw-${u}-${crypto.randomUUID()}`])) as Record<User, string>;
const as = (user: User): NatsAccess => ({ user, password: passwords[user] });
const conf = natsConfigPath;
const serverEnv = Object.fromEntries(natsUsers.map((u) => [passwordVariable(u), passwords[u]]));

/** A nats-server on nats.conf whose log lines are kept: refusals are looked for in them. */
async function securedNats(): Promise<{ server: NatsServer; log: string[] }> {
  const log: string[] = [];
  const server = await startNatsServer({ config: conf, env: { PATH: process.env.PATH ?? "", ...serverEnv }, onLine: (l) => log.push(l) });
  return { server, log };
}

/** The server logs each refused publish, subscription and sign-in as an error line. */
const refusals = (lines: string[]) => lines.filter((l) => /Violation|authentication error/i.test(l));

/** A promise's rejection message (it must reject). */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected a refusal, but it was allowed");
}

const binary = natsServerBinary();
const databaseUrl = process.env.DATABASE_URL;
const noServer = !binary ? "no nats-server binary (set TROVE_NATS_SERVER or install nats-server)" : undefined;
const noTrove = noServer ?? (!databaseUrl ? "DATABASE_URL is unset" : undefined);

if (noServer) {
  console.log(`SKIPPED secured-bus suite: ${noServer}`);
  describe.skip(`NATS with deploy/nats/nats.conf (skipped: ${noServer})`, () => test("who may do what, and credentials files", () => {}));
} else {
  describe("NATS with deploy/nats/nats.conf: who may do what", () => {
    let nats: { server: NatsServer; log: string[] };
    const open: NatsConnection[] = [];
    const client = async (user: User) => {
      const nc = await connectNats(nats.server.url, as(user));
      open.push(nc);
      return nc;
    };
    beforeAll(async () => {
      nats = await securedNats();
      // The event stream with one item event in it, as the items service's relay makes and fills it.
      const items = await NatsBus.connect({ url: nats.server.url, prefix: "trove", log: createLogger("silent"), access: as("items") });
      await items.publish("items.event.item.created", { accountId: "acc_1", itemId: "itm_1" }, { id: "evt_1" });
      await items.close();
    });
    afterAll(async () => {
      await Promise.all(open.map((nc) => nc.close().catch(() => {})));
      await nats?.server.stop();
    });

    test("a client without credentials, or with a wrong password, is refused", async () => {
      expect(await refusal(connectNats(nats.server.url, undefined))).toMatch(/refused a connection without credentials \(set NATS_USER\/NATS_PASSWORD or NATS_CREDS\): Authorization Violation/);
      expect(await refusal(connectNats(nats.server.url, { user: "exports", password: "not-the-password" }))).toMatch(/refused user "exports".*Authorization Violation/);
      expect(await refusal(connectNats(nats.server.url, { user: "nobody", password: passwords.gateway }))).toMatch(/Authorization Violation/);
    });

    test("another service's credentials cannot send a public operation's request; the gateway's can", async () => {
      // The items service's own credentials listen where its requests arrive.
      const arrived: { subject: string; data: string }[] = [];
      const items = await client("items");
      items.subscribe("trove.rpc.items.>", { callback: (_err, m) => void arrived.push({ subject: m.subject, data: m.string() }) });
      await items.flush();

      const exportsClient = await client("exports");
      const notes = await client("notes");
      const gateway = await client("gateway");
      // Refused requests, each followed on the same connection by one it may send: a connection's messages
      // arrive in order, so once the allowed one is here, a refused one that got through would be here before it.
      expect(await refusal(exportsClient.request("trove.rpc.items.getItem", "forged by exports", { timeout: 10_000 }))).toMatch(/Permissions Violation for Publish to "trove.rpc.items.getItem"/);
      exportsClient.publish("trove.rpc.items.deleteItem", "forged by exports");
      exportsClient.publish("trove.rpc.items.internal.exportPage", "allowed for exports");
      notes.publish("trove.rpc.items.getItem", "forged by notes");
      notes.publish("trove.rpc.items.internal.exportPage", "forged by notes");
      notes.publish("trove.rpc.items.internal.itemRefs", "allowed for notes");
      // The gateway sends public operations, never another service's internal subjects.
      gateway.publish("trove.rpc.items.internal.importEntries", "forged by gateway");
      gateway.publish("trove.rpc.items.getItem", "allowed for gateway");
      await eventually(() => arrived.length >= 3, 20_000);
      expect(arrived.sort((a, b) => a.data.localeCompare(b.data))).toEqual([
        { subject: "trove.rpc.items.internal.exportPage", data: "allowed for exports" },
        { subject: "trove.rpc.items.getItem", data: "allowed for gateway" },
        { subject: "trove.rpc.items.internal.itemRefs", data: "allowed for notes" },
      ]);
    });

    test("another service's credentials cannot take a service's requests (no subscription on its subjects)", async () => {
      const notes = await client("notes");
      const sub = notes.subscribe("trove.rpc.items.>", { queue: "trove" });
      const ended = (async () => {
        for await (const _ of sub);
      })();
      expect(await refusal(ended)).toMatch(/Permissions Violation for Subscription to "trove.rpc.items.>"/);
    });

    test("another service's credentials cannot read the event stream: no consumer, no message, no subscription", async () => {
      const exportsClient = await client("exports");
      const jsm = await jetstreamManager(exportsClient);
      const everything = { ack_policy: AckPolicy.Explicit, filter_subject: "trove.events.>" };
      expect(await refusal(jsm.consumers.add("trove_events", { ...everything, durable_name: "spy" }))).toMatch(/Permissions Violation/);
      expect(await refusal(jsm.consumers.add("trove_events", everything))).toMatch(/Permissions Violation/);
      expect(await refusal(jsm.streams.getMessage("trove_events", { seq: 1 }))).toMatch(/Permissions Violation/);
      for (const subject of ["trove.events.>", "_INBOX.>", "_INBOX.delivery.>"]) {
        const sub = exportsClient.subscribe(subject);
        expect(await refusal((async () => { for await (const _ of sub); })())).toMatch(/Permissions Violation for Subscription/);
      }
      // Notes reads note events and tag deletions through its own durables only: not the delivery service's
      // consumer, nor its own durable widened to item events.
      const notesJsm = await jetstreamManager(await client("notes"));
      expect(await refusal(notesJsm.consumers.add("trove_events", { ack_policy: AckPolicy.Explicit, durable_name: "delivery", filter_subject: "trove.events.items.event.>" }))).toMatch(/Permissions Violation/);
      expect(await refusal(notesJsm.consumers.add("trove_events", { ack_policy: AckPolicy.Explicit, durable_name: "search-notes", filter_subject: "trove.events.items.event.>" }))).toMatch(/Permissions Violation/);
      expect(await refusal(notesJsm.consumers.info("trove_events", "delivery"))).toMatch(/Permissions Violation/);

      // The delivery service reads the item events through its durable, as it does in a running Trove.
      const delivery = await NatsBus.connect({ url: nats.server.url, prefix: "trove", log: createLogger("silent"), access: as("delivery") });
      try {
        const got: unknown[] = [];
        const consumer = await delivery.consumeBatches(
          { durable: "delivery", filter: "items.event.>", ackWaitMs: 30_000, batch: 10, retryDelaysMs: [100] },
          async (events) => void got.push(...events.map((e) => e.data)),
        );
        await eventually(() => got.length === 1, 20_000);
        await consumer.stop();
        expect(got).toEqual([{ accountId: "acc_1", itemId: "itm_1" }]);
      } finally {
        await delivery.close();
      }
    });
  });

  describe("a credentials file (NATS_CREDS) signs in", () => {
    const dir = mkdtempSync(join(tmpdir(), "trove-nats-creds-"));
    let server: NatsServer;
    let creds: ReturnType<typeof decentralizedAuth>;
    beforeAll(async () => {
      creds = decentralizedAuth(dir);
      server = await startNatsServer({ config: creds.serverConfig });
    });
    afterAll(async () => {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test("a bus signed in with a user JWT and its seed carries requests and events; a seed not the JWT's is refused", async () => {
      const log = createLogger("silent");
      const bus = await NatsBus.connect({ url: server.url, prefix: "trove", log, access: { credsFile: creds.userCreds } });
      try {
        const served = bus.serve("items.getItem", (payload) => ({ asked: payload }));
        expect(await bus.request("items.getItem", { id: "itm_1" })).toEqual({ asked: { id: "itm_1" } });
        expect(await bus.publish("items.event.item.created", { itemId: "itm_1" }, { id: "evt_1" })).toEqual({ duplicate: false });
        await served.stop();
      } finally {
        await bus.close();
      }
      expect(await refusal(connectNats(server.url, { credsFile: creds.forgedCreds }))).toMatch(/refused the credentials file of NATS_CREDS.*Authorization Violation/);
    });
  });
}

if (noTrove) {
  console.log(`SKIPPED a whole Trove under deploy/nats/nats.conf: ${noTrove}`);
  describe.skip(`a whole Trove under deploy/nats/nats.conf (skipped: ${noTrove})`, () => test("every service signed in as its own user, and bun run start as trove", () => {}));
} else {
  describe("a whole Trove under deploy/nats/nats.conf, each service signed in as its own user", () => {
    let nats: { server: NatsServer; log: string[] };
    let dbUrl = "";
    let url = "";
    const output: string[] = [];
    const procs: Subprocess[] = [];
    const feeds = feedServer();
    const receiver = startWebhookReceiver();

    beforeAll(async () => {
      nats = await securedNats();
      dbUrl = await createScratchDatabase("natsauth");
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      for (const name of serviceNames) {
        const env = processEnv({ databaseUrl: dbUrl, natsUrl: nats.server.url, prefix: "trove", how: "", stop: async () => {} }, port, {
          NATS_USER: name,
          NATS_PASSWORD: passwords[name],
          TROVE_ADMIN_PORT: "off",
        });
        procs.push(spawnWatched(name, `services/${name}/main.ts`, env, output));
      }
      await waitForHealth(url, "ok", 120_000);
    }, 180_000);
    afterAll(async () => {
      for (const p of procs) p.kill("SIGTERM");
      await Promise.all(procs.map((p) => p.exited));
      await nats?.server.stop();
      if (dbUrl) await dropScratchDatabase(dbUrl).catch(() => {});
      feeds.stop();
      receiver.stop();
    });

    test("save, read, search, notes, exports, imports, a feed and a webhook all work end to end", async () => {
      await exercise(url, { natsUrl: nats.server.url, feeds, receiver });
    }, 180_000);

    test("a service started again finds its stream, durables and buckets and carries on", async () => {
      const at = serviceNames.indexOf("items");
      procs[at]!.kill("SIGTERM");
      expect(await procs[at]!.exited).toBe(0);
      const env = processEnv({ databaseUrl: dbUrl, natsUrl: nats.server.url, prefix: "trove", how: "", stop: async () => {} }, Number(new URL(url).port), {
        NATS_USER: "items",
        NATS_PASSWORD: passwords.items,
        TROVE_ADMIN_PORT: "off",
      });
      procs[at] = spawnWatched("items#2", "services/items/main.ts", env, output);
      await waitForHealth(url, "ok", 120_000);
      const saved = await ok(url, "/api/ingest", { json: { url: "https://again.example.invalid/", html: articleHtml.replaceAll("Parsing Things Well", "Kangaroo Things Well") } });
      await eventually(async () => ((await ok(url, "/api/items/search?q=kangaroo&mode=lexical")).items as { id: string }[]).some((i) => i.id === saved.id), 60_000);
    }, 180_000);

    test("no connection was refused anything: not in the server's log, not in any process's output", () => {
      expect(refusals(nats.log)).toEqual([]);
      expect(output.filter((l) => /Permissions Violation|NATS refused|Authorization Violation/.test(l))).toEqual([]);
    });
  });

  describe("`bun run start` over NATS signed in as the user trove", () => {
    let nats: { server: NatsServer; log: string[] };
    let dbUrl = "";
    let url = "";
    const output: string[] = [];
    let proc: Subprocess | undefined;
    const feeds = feedServer();
    const receiver = startWebhookReceiver();

    beforeAll(async () => {
      nats = await securedNats();
      dbUrl = await createScratchDatabase("natsauthone");
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      const env = processEnv({ databaseUrl: dbUrl, natsUrl: nats.server.url, prefix: "trove", how: "", stop: async () => {} }, port, {
        NATS_USER: "trove",
        NATS_PASSWORD: passwords.trove,
        TROVE_ADMIN_PORT: "off",
      });
      proc = spawnWatched("trove", "start", env, output);
      await waitForHealth(url, "ok", 120_000);
    }, 180_000);
    afterAll(async () => {
      proc?.kill("SIGTERM");
      await proc?.exited;
      await nats?.server.stop();
      if (dbUrl) await dropScratchDatabase(dbUrl).catch(() => {});
      feeds.stop();
      receiver.stop();
    });

    test("every service in one process works end to end, and nothing is refused", async () => {
      await exercise(url, { natsUrl: nats.server.url, feeds, receiver });
      expect(refusals(nats.log)).toEqual([]);
      expect(output.filter((l) => /Permissions Violation|NATS refused|Authorization Violation/.test(l))).toEqual([]);
    }, 180_000);
  });

}

/** `bun run <script>` with its output kept (and passed on), so a refusal it logs is seen. */
function spawnWatched(name: string, script: string, env: Record<string, string>, output: string[]): Subprocess {
  const proc = Bun.spawn(["bun", "run", script], { cwd: repoRoot, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  for (const stream of [proc.stdout, proc.stderr]) {
    void (async () => {
      let pending = "";
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        pending += chunk;
        const lines = pending.split("\n");
        pending = lines.pop()!;
        for (const line of lines) {
          output.push(`${name}: ${line}`);
          process.stderr.write(`${name}: ${line}\n`);
        }
      }
    })();
  }
  return proc;
}

const call = async (url: string, path: string, init: { method?: string; json?: unknown } = {}) => {
  const headers = new Headers({ authorization: `Bearer ${aliceKey}` });
  if (init.json !== undefined) headers.set("content-type", "application/json");
  const res = await fetch(url + path, { method: init.method ?? (init.json === undefined ? "GET" : "POST"), headers, body: init.json !== undefined ? JSON.stringify(init.json) : undefined });
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, body, text, headers: res.headers };
};

const ok = async (url: string, path: string, init: { method?: string; json?: unknown } = {}) => {
  const r = await call(url, path, init);
  expect(r.status, `${init.method ?? "GET"} ${path}: ${r.text.slice(0, 300)}`).toBe(200);
  return r.body;
};

/**
 * One pass over what Trove does across services, each step a different path through the bus: gateway -> service
 * requests, service -> service internal requests, consumers of the event stream, job wake-ups, the object stores.
 */
async function exercise(url: string, t: { natsUrl: string; feeds: ReturnType<typeof feedServer>; receiver: ReturnType<typeof startWebhookReceiver> }) {
  const run = crypto.randomUUID().slice(0, 8);
  // Health asks every service over the bus.
  const health = await ok(url, "/api/health");
  expect(health).toMatchObject({ status: "ok", bus: { kind: "nats", ok: true } });

  // A webhook (delivery consumes item events and queues the attempt), then a save (gateway -> items).
  const hook = await ok(url, "/api/webhooks", { json: { url: `${t.receiver.url}/${run}`, eventTypes: ["item.created"] } });
  expect(hook.endpoint.id).toBeString();
  const saved = await ok(url, "/api/ingest", { json: { url: `https://natsauth.example.invalid/${run}`, html: articleHtml } });
  expect(saved).toMatchObject({ ok: true, extracted: true });
  const itemId = saved.id as string;
  await ok(url, `/api/items/${itemId}`, { json: { tags: [`drop-${run}`] } });

  // A read: items asks notes which notes link the item.
  expect(await ok(url, `/api/items/${itemId}`)).toMatchObject({ id: itemId, title: "Parsing Things Well" });

  // A search: the index follows the item events (the search-items consumer).
  await eventually(async () => ((await ok(url, "/api/items/search?q=parsing&mode=lexical")).items as { id: string }[]).some((i) => i.id === itemId), 60_000);

  // A note linking the item (notes -> items itemRefs), seen from the item (items -> notes itemNotes), and the note
  // found by the search across both (notes -> items searchItems; the search-notes consumer).
  const note = (await ok(url, "/api/notes", { json: { title: `Reading ${run}`, bodyMarkdown: `# Reading\n\nwombat${run} notes on parsing\n`, tags: [`drop-${run}`] } })).note;
  const link = await ok(url, `/api/notes/${note.id}/item-links`, { json: { itemId } });
  expect(link.link).toMatchObject({ itemId });
  expect((await ok(url, `/api/items/${itemId}`)).connectedNotes).toEqual([expect.objectContaining({ id: note.id })]);
  await eventually(async () => {
    const found = (await ok(url, `/api/search?q=wombat${run}`)).results as { id: string; type: string }[];
    return found.some((r) => r.id === note.id);
  }, 60_000);
  expect(((await ok(url, "/api/search?q=parsing")).results as { id: string }[]).map((r) => r.id)).toContain(itemId);

  // A tag deleted: items asks notes to drop it from notes too (and the notes-tags consumer sees the event).
  expect((await call(url, `/api/tags/drop-${run}`, { method: "DELETE" })).status).toBe(200);
  await eventually(async () => !((await ok(url, `/api/notes/${note.id}`)).note.tags as string[]).includes(`drop-${run}`), 60_000);

  // The webhook delivered the save's item.created.
  await eventually(() => t.receiver.bodies().some((b) => b.type === "item.created" && b.data?.itemId === itemId), 60_000);

  // An upload into the blob bucket (items), read back through the gateway. Random bytes do not compress: the
  // request is too large for one message and travels through the payload bucket (gateway -> items).
  const png = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.from(crypto.getRandomValues(new Uint8Array(1_200_000)))]);
  const up = await ok(url, `/api/items/${itemId}/media`, { json: { contentType: "image/png", dataBase64: png.toString("base64") } });
  const media = await fetch(`${url}${up.media.url}`, { headers: { authorization: `Bearer ${aliceKey}` } });
  expect(Buffer.from(await media.arrayBuffer()).equals(png)).toBe(true);

  // A reply too large for one message even compressed (random words) travels through the payload bucket too.
  const randomWords = () => (Buffer.from(crypto.getRandomValues(new Uint8Array(200_000))).toString("base64").match(/.{1,10}/g) ?? []).join(" ");
  for (let i = 0; i < 6; i++) {
    await ok(url, "/api/ingest", { json: { url: `https://big-${run}.example.invalid/${i}`, html: `<html><body><article><h1>Big ${i}</h1><p>${randomWords()}</p></article></body></html>` } });
  }
  const big = await call(url, `/api/items?include=content&source=big-${run}.example.invalid`);
  expect(big.status).toBe(200);
  expect(big.text.length).toBeGreaterThan(1_500_000);
  expect(big.body.items).toHaveLength(6);
  // So the payload bucket's permissions were used: it exists (made on first use).
  const gateway = await connectNats(t.natsUrl, as("gateway"));
  try {
    expect((await (await jetstreamManager(gateway)).streams.info("OBJ_trove_payloads")).config.name).toBe("OBJ_trove_payloads");
  } finally {
    await gateway.close();
  }

  // An export (exports -> items exportPage, the file in the blob bucket, downloaded through the gateway).
  const exp = (await ok(url, "/api/exports", { json: { format: "json" } })).export;
  await eventually(async () => (await ok(url, `/api/exports/${exp.id}`)).export.status === "completed", 90_000);
  const download = await fetch(`${url}/api/exports/${exp.id}/download`, { headers: { authorization: `Bearer ${aliceKey}` } });
  expect(download.status).toBe(200);
  expect(await download.text()).toContain(itemId);

  // The notes' own export (the notes service's ZIP in the blob bucket).
  const notesZip = await fetch(`${url}/api/notes/export`, { headers: { authorization: `Bearer ${aliceKey}` } });
  expect(notesZip.status).toBe(200);
  expect(notesZip.headers.get("content-type")).toBe("application/zip");
  await notesZip.arrayBuffer();

  // An import (exports -> gateway accountCaller, items importEntries and captureItem).
  const csv = `title,url,time_added,tags,status\r\nImported ${run},https://import-${run}.example.invalid/page,1600000000,,unread\r\n`;
  const imp = (await ok(url, "/api/imports", { json: { file: Buffer.from(csv).toString("base64") } })).import;
  await eventually(async () => (await ok(url, `/api/imports/${imp.id}`)).import.status === "completed", 90_000);
  await eventually(async () => ((await ok(url, `/api/items?source=import-${run}.example.invalid`)).items as unknown[]).length === 1, 30_000);

  // A feed source (sources -> gateway accountCaller, items ingest/getItem/updateItem).
  const feedUrl = t.feeds.feed(`/${run}.xml`, rss2(`Feed ${run}`, [{ id: `${run}-1`, title: `Entry ${run}`, link: `https://feed-${run}.example.invalid/1`, at: 1_700_000_000 }]));
  const source = await ok(url, "/api/sources", { json: { type: "rss", feedUrl, backfillItems: 1 } });
  expect(source.initialRun).toMatchObject({ status: "ok", itemsAdded: 1 });
  expect(((await ok(url, `/api/items?source=feed-${run}.example.invalid`)).items as unknown[]).length).toBe(1);
}

/**
 * NATS's decentralized authentication, as `nsc` sets it up: an operator, a system account and an account with
 * JetStream, signed JWTs (nkeys from nats.js), a server configuration that trusts the operator, and a credentials
 * file for a user of the account; plus one whose seed is another user's.
 */
function decentralizedAuth(dir: string) {
  const b64u = (b: Uint8Array | string) => Buffer.from(b).toString("base64url");
  const jwt = (signer: nkeys.KeyPair, sub: string, name: string, nats: Record<string, unknown>) => {
    const header = b64u(JSON.stringify({ typ: "JWT", alg: "ed25519-nkey" }));
    const claims: Record<string, unknown> = { iat: Math.floor(Date.now() / 1000), iss: signer.getPublicKey(), name, sub, nats: { ...nats, version: 2 } };
    claims.jti = new Bun.CryptoHasher("sha256").update(JSON.stringify(claims)).digest("hex").slice(0, 52).toUpperCase();
    const body = b64u(JSON.stringify(claims));
    return `${header}.${body}.${b64u(signer.sign(new TextEncoder().encode(`${header}.${body}`)))}`;
  };
  const unlimited = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };
  const operator = nkeys.createOperator();
  const system = nkeys.createAccount();
  const account = nkeys.createAccount();
  const user = nkeys.createUser();
  const accountJwt = jwt(operator, account.getPublicKey(), "trove", { type: "account", limits: { ...unlimited, mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 } });
  const systemJwt = jwt(operator, system.getPublicKey(), "SYS", { type: "account", limits: unlimited });
  const serverConfig = join(dir, "server.conf");
  writeFileSync(
    serverConfig,
    `operator: "${jwt(operator, operator.getPublicKey(), "test", { type: "operator" })}"\nsystem_account: ${system.getPublicKey()}\nresolver: MEMORY\n` +
      `resolver_preload: {\n  ${account.getPublicKey()}: "${accountJwt}"\n  ${system.getPublicKey()}: "${systemJwt}"\n}\njetstream: enabled\n`,
  );
  const userJwt = jwt(account, user.getPublicKey(), "items", { type: "user", pub: {}, sub: {}, subs: -1, data: -1, payload: -1 });
  const credsFile = (name: string, seed: Uint8Array) => {
    const path = join(dir, name);
    writeFileSync(path, `-----BEGIN NATS USER JWT-----\n${userJwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${new TextDecoder().decode(seed)}\n------END USER NKEY SEED------\n`);
    return path;
  };
  return { serverConfig, userCreds: credsFile("user.creds", user.getSeed()), forgedCreds: credsFile("forged.creds", nkeys.createUser().getSeed()) };
}
