// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP, plus a
// second gateway replica on the same database (and, on NATS, its own connection, as another process has). The
// only instrument is a subclass of the real accounts repository that counts the key lookups it runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openBus, type Bus } from "@trove/bus";
import type { Runtime } from "@trove/host";
import { aliceKey, bobKey, createClient, eventually, startTrove, type TestTrove } from "@trove/testing";
import { AccountsRepository } from "../accounts.repository.ts";
import { AccountsService, hashKey } from "../accounts.service.ts";
import { startGateway, type GatewayOptions } from "../index.ts";

class CountingRepository extends AccountsRepository {
  lookups = 0;
  override async useKey(keyHash: string, now: number) {
    this.lookups++;
    return super.useKey(keyHash, now);
  }
}

let trove: TestTrove;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  // Loopback is a trusted proxy, so a test gives its requests an address of their own (X-Forwarded-For): the
  // failed-lookup budget of 127.0.0.1 is shared by every test of the file (and, on PostgreSQL, by both gateways).
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000", TROVE_TRUSTED_PROXIES: "127.0.0.1" });
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await trove.stop();
});

/** Another gateway process: same database, same bus (on NATS its own connection), its own key cache. */
async function replica(opts: GatewayOptions = {}) {
  const rt: Runtime = trove.runtime;
  let bus: Bus = rt.bus;
  if (rt.config.natsUrl) {
    bus = await openBus({ natsUrl: rt.config.natsUrl, prefix: rt.config.busPrefix, log: rt.log, name: "gateway-replica" });
    await bus.healthy(); // a round trip: its subscriptions are in place before the test goes on
  }
  const gateway = await startGateway({ ...rt, bus, config: { ...rt.config, port: 0 } }, opts);
  if (bus !== rt.bus) await bus.healthy();
  cleanups.push(async () => {
    await gateway.stop();
    if (bus !== rt.bus) await bus.close();
  });
  const api = (path: string, key: string | null, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (key !== null) headers.set("authorization", `Bearer ${key}`);
    if (init.json !== undefined) headers.set("content-type", "application/json");
    return fetch(gateway.url + path, { ...init, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body });
  };
  return { gateway, api };
}

const randomKey = () => `trove_ck_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;

describe("revocation is immediate on every gateway", () => {
  test("a key cached by two gateways is refused by both right after it is revoked on either", async () => {
    const counting = new CountingRepository(trove.db);
    const b = await replica({ accountsRepository: counting });
    const onA = (path: string, key: string) => trove.api(path, { key });
    for (const revokeOn of ["A", "B"] as const) {
      const client = await createClient(trove, { name: `revoked on ${revokeOn}` });
      expect((await onA("/api/me", client.apiKey)).status).toBe(200);
      expect((await b.api("/api/me", client.apiKey)).status).toBe(200);
      // B answers it from its cache now: no database lookup.
      const before = counting.lookups;
      expect((await b.api("/api/me", client.apiKey)).status).toBe(200);
      expect(counting.lookups).toBe(before);

      const revoke = { method: "POST", json: { id: client.id } };
      const res = revokeOn === "A" ? await trove.api("/api/connected-clients/revoke", revoke) : await b.api("/api/connected-clients/revoke", aliceKey, revoke);
      expect(res.status).toBe(200);
      // No waiting: the very next request on either gateway is refused.
      const [a1, b1] = await Promise.all([onA("/api/me", client.apiKey), b.api("/api/me", client.apiKey)]);
      expect([a1.status, b1.status]).toEqual([401, 401]);
      expect(((await b1.json()) as { error: string }).error).toBe("unauthorized");
    }
    // Other keys were not disturbed.
    expect((await b.api("/api/me", aliceKey)).status).toBe(200);
    expect((await b.api("/api/me", bobKey)).status).toBe(200);
  });
});

describe("a flood of made-up keys", () => {
  test("costs a bounded number of lookups, then 429 from that address; good keys keep working from the cache", async () => {
    const counting = new CountingRepository(trove.db);
    // A tiny cache shows that unknown keys cannot push good ones out: they live in a cache of their own.
    const b = await replica({ accountsRepository: counting, accounts: { cache: { found: 2, missing: 10, ttlMs: 60_000 }, failedLookupsPerAddress: 30 } });
    const client = await createClient(trove, { name: "survivor" });
    for (const key of [aliceKey, client.apiKey]) expect((await b.api("/api/me", key)).status).toBe(200);
    const afterGood = counting.lookups;

    const from = { headers: { "x-forwarded-for": "198.51.100.7" } };
    const flood = Array.from({ length: 400 }, randomKey);
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < flood.length; i += 50) {
      const answers = await Promise.all(flood.slice(i, i + 50).map((k) => b.api("/api/items", k, from)));
      for (const r of answers) {
        statuses.push(r.status);
        if (r.status === 429) limited ??= r;
      }
    }
    expect(statuses.filter((s) => s === 401).length).toBe(30);
    expect(statuses.filter((s) => s === 429).length).toBe(370);
    expect(counting.lookups - afterGood).toBe(30);
    expect(await limited!.json()).toMatchObject({ error: "rate_limited" });
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited!.headers.get("ratelimit")).toMatch(/^"failed-keys";r=0;t=\d+$/);
    expect(limited!.headers.get("ratelimit-policy")).toBe('"default";q=1000000;w=60, "failed-keys";q=30;w=60');

    // The good keys still authenticate from that same address, without a database query.
    const before = counting.lookups;
    for (const key of [aliceKey, client.apiKey]) expect((await b.api("/api/me", key, from)).status).toBe(200);
    expect(counting.lookups).toBe(before);
    // A bad key seen lately is answered from the negative cache: 401 as before, no query, no budget.
    // (Which ones found the budget left is the database's order on PostgreSQL, not the flood's.)
    const last = flood[statuses.lastIndexOf(401)]!;
    expect((await b.api("/api/me", last, from)).status).toBe(401);
    expect(counting.lookups).toBe(before);
    // A good key this gateway has not seen yet waits out the window like any other from that address.
    const fresh = await createClient(trove, { name: "fresh" });
    const waits = await b.api("/api/me", fresh.apiKey, from);
    expect(waits.status).toBe(429);
    expect(counting.lookups).toBe(before);
    // On PostgreSQL the other gateway counts in the same budget and refuses it too; with counts in memory (the
    // embedded deployment, one gateway) a second gateway in this process has its own.
    expect((await trove.api("/api/me", { key: fresh.apiKey, ...from })).status).toBe(trove.stack === "postgres-nats" ? 429 : 200);
  }, 60_000);

  test("the budget is per address, and a found key gives its point back", async () => {
    const counting = new CountingRepository(trove.db);
    const accounts = new AccountsService(counting, trove.runtime.log, { failedLookupsPerAddress: 3 });
    for (let i = 0; i < 3; i++) expect(await accounts.authenticate(randomKey(), "192.0.2.1")).toEqual({ caller: null });
    expect("refused" in (await accounts.authenticate(randomKey(), "192.0.2.1"))).toBe(true);
    expect(await accounts.authenticate(randomKey(), "192.0.2.2")).toEqual({ caller: null });
    // Good keys looked up from one address never use up its budget.
    for (let i = 0; i < 5; i++) {
      const fresh = new AccountsService(counting, trove.runtime.log, { failedLookupsPerAddress: 1 });
      const check = await fresh.authenticate(aliceKey, "192.0.2.3");
      expect("caller" in check && check.caller?.keyKind).toBe("personal");
      expect(await fresh.authenticate(randomKey(), "192.0.2.3")).toEqual({ caller: null });
    }
    expect(counting.lookups).toBe(3 + 1 + 10);
  });
});

describe("keys are never logged", () => {
  test("no log line holds a key, its hash, or an Authorization header, whatever the request", async () => {
    const logged = await startTrove({ LOG_LEVEL: "debug", TROVE_RATE_LIMIT: "1000000" });
    try {
      const client = await createClient(logged, { name: "logged" });
      const revoked = await createClient(logged, { name: "revoked" });
      expect((await logged.api("/api/connected-clients/revoke", { method: "POST", json: { id: revoked.id } })).status).toBe(200);
      const bad = randomKey();
      const requests: [string, RequestInit & { key?: string | null; json?: unknown }][] = [
        ["/api/me", { key: client.apiKey }],
        ["/api/items?limit=0", { key: client.apiKey }],
        ["/api/items/0190aaaa-0000-7000-8000-000000000000", { key: client.apiKey }],
        ["/api/nope", { key: client.apiKey }],
        ["/api/connected-clients", { key: client.apiKey }],
        ["/api/me", { key: revoked.apiKey }],
        ["/api/me", { key: bad }],
        ["/api/me", { key: null, headers: { authorization: `Basic ${bad}` } }],
        ["/api/me", { key: null, headers: { authorization: `Bearer ${bad} extra` } }],
        ["/api/ingest", { method: "POST", key: client.apiKey, headers: { "content-type": "application/json" }, body: '{"url": "' }],
        ["/api/connected-clients", { method: "POST", key: aliceKey, json: { name: "made while logging" } }],
        ["/api/connected-clients", { method: "POST", key: bobKey, json: { name: "x", scope: { collectionId: "nope" } } }],
        ["/api/me", { key: client.apiKey, headers: { "service-api-version": "1999-01-01" } }],
      ];
      const answers: string[] = [];
      for (const [path, init] of requests) answers.push(await (await logged.api(path, init)).text());
      const made = JSON.parse(answers[10]!).apiKey as string;
      expect(made).toStartWith("trove_ck_");
      // The access line of each request is written once its response has gone out.
      await eventually(() => logged.logs.filter((l) => l.msg === "request").length >= requests.length + 3);
      const text = logged.logs.map((l) => JSON.stringify(l)).join("\n");
      for (const secret of [client.apiKey, revoked.apiKey, bad, made, aliceKey, bobKey]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(hashKey(secret));
      }
      expect(text.toLowerCase()).not.toContain("bearer");
      expect(text.toLowerCase()).not.toContain("authorization");
      // The access lines are there and say whose request it was (the account, not the key).
      expect(logged.logs.some((l) => l.msg === "request" && l.path === "/api/me" && typeof l.account === "string")).toBe(true);
    } finally {
      await logged.stop();
    }
  });
});
