// Gateway replicas on one PostgreSQL and one NATS count in the same budgets and refuse a revoked key whatever
// they heard on the bus. Real: every service in-process over PostgreSQL + NATS, plus a second gateway replica on
// the same database with a NATS connection of its own, made through a TCP proxy the test can cut or silence. The
// only instrument is a subclass of the real accounts repository that counts the key lookups it runs.
// The embedded deployment is one process (PGlite allows no other): its counts stay in memory, nothing to share.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openBus } from "@trove/bus";
import {
  acceptWrites,
  aliceKey,
  createClient,
  refuseWrites,
  startTcpProxy,
  startTrove,
  testStack,
  type TcpProxy,
  type TestTrove,
} from "@trove/testing";
import { AccountsRepository } from "../accounts.repository.ts";
import { startGateway } from "../index.ts";

class CountingRepository extends AccountsRepository {
  lookups = 0;
  override async useKey(keyHash: string, now: number) {
    this.lookups++;
    return super.useKey(keyHash, now);
  }
}

const limit = 25;
const signInLimit = 4;
const accountLimit = 3;

type Init = RequestInit & { key?: string | null; json?: unknown; from?: string };
type Call = (path: string, init?: Init) => Promise<Response>;

/** fetch on a gateway, as alice unless `key` says otherwise, from client address `from` (X-Forwarded-For). */
const caller =
  (base: () => string): Call =>
  (path, init = {}) => {
    const { key = aliceKey, json, from, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (key !== null) headers.set("authorization", `Bearer ${key}`);
    if (json !== undefined) headers.set("content-type", "application/json");
    if (from !== undefined) headers.set("x-forwarded-for", from);
    return fetch(base() + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  };

if (testStack() !== "postgres-nats") {
  describe.skip("gateway replicas (skipped: the embedded stack runs one gateway; run with TROVE_TEST_STACK=postgres-nats)", () => {
    test("share budgets and refuse a revoked key whatever they heard on the bus", () => {});
  });
} else {
  let trove: TestTrove;
  let onA: Call;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    trove = await startTrove({
      TROVE_RATE_LIMIT: String(limit),
      TROVE_SIGN_IN_LIMIT: String(signInLimit),
      TROVE_SIGN_IN_ACCOUNT_LIMIT: String(accountLimit),
      // Loopback stands for the ingress, so each test's clients have addresses of their own.
      TROVE_TRUSTED_PROXIES: "127.0.0.1",
    });
    onA = caller(() => trove.url);
  });
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
    await trove.stop();
  });

  /** Another gateway process: same database, its own NATS connection (through `proxy` when given), its own cache. */
  async function replica(proxy?: TcpProxy) {
    const rt = trove.runtime;
    const nats = new URL(rt.config.natsUrl!);
    const natsUrl = proxy ? `nats://127.0.0.1:${proxy.port}` : nats.href;
    const bus = await openBus({ natsUrl, prefix: rt.config.busPrefix, log: rt.log, name: "gateway-replica" });
    const repo = new CountingRepository(rt.database.db);
    const gateway = await startGateway({ ...rt, bus, config: { ...rt.config, port: 0 } }, { accountsRepository: repo });
    await bus.healthy(); // a round trip: its subscriptions are in place before the test goes on
    cleanups.push(async () => {
      proxy?.restore();
      await gateway.stop();
      await bus.close();
      await proxy?.stop();
    });
    return { call: caller(() => gateway.url), repo };
  }

  describe("budgets are shared by the replicas", () => {
    test("one key's requests count in one budget, whichever replica takes them, with the same headers", async () => {
      const b = await replica();
      const { apiKey } = await createClient(trove, { name: "budget" });
      for (let i = 0; i < limit; i++) {
        const res = await (i % 2 === 0 ? onA : b.call)("/api/session", { key: apiKey });
        expect(res.status).toBe(200);
        expect(res.headers.get("ratelimit-policy")).toBe(`"default";q=${limit};w=60`);
        expect(res.headers.get("ratelimit")).toMatch(new RegExp(`^"default";r=${limit - 1 - i};t=\\d+$`));
      }
      for (const call of [onA, b.call]) {
        const refused = await call("/api/session", { key: apiKey });
        expect(refused.status).toBe(429);
        expect(((await refused.json()) as { error: string }).error).toBe("rate_limited");
        expect(refused.headers.get("ratelimit")).toMatch(/^"default";r=0;t=\d+$/);
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      // Another key (alice's) has its own budget.
      expect((await b.call("/api/session")).status).toBe(200);
    });

    test("an address without a key has one budget too", async () => {
      const b = await replica();
      for (let i = 0; i < limit; i++) {
        const res = await (i % 2 === 0 ? onA : b.call)("/api/health", { key: null, from: "192.0.2.11" });
        expect(res.headers.get("ratelimit")).toMatch(new RegExp(`^"default";r=${limit - 1 - i};t=\\d+$`));
      }
      expect((await b.call("/api/health", { key: null, from: "192.0.2.11" })).status).toBe(429);
      expect((await onA("/api/health", { key: null, from: "192.0.2.11" })).status).toBe(429);
      // Another client behind the same proxy is not held back.
      expect((await onA("/api/health", { key: null, from: "192.0.2.12" })).status).toBe(200);
    });

    test("sign-in starts per address and failed passwords per account hold across the replicas", async () => {
      const b = await replica();
      const signIn = (call: Call, email: string, from: string) =>
        call("/api/session", { method: "POST", key: null, from, json: { email, password: "not the password" } });

      // Starts from one address, each for another email (so no account budget runs out).
      for (let i = 0; i < signInLimit; i++) {
        const res = await signIn(i % 2 === 0 ? onA : b.call, `starts-${i}@example.test`, "192.0.2.21");
        expect(res.status).toBe(401);
        expect(res.headers.get("ratelimit")).toContain(`"sign-in";r=${signInLimit - 1 - i};t=`);
      }
      for (const call of [onA, b.call]) {
        const refused = await signIn(call, "starts-late@example.test", "192.0.2.21");
        expect(refused.status).toBe(429);
        expect(refused.headers.get("ratelimit-policy")).toContain(`"sign-in";q=${signInLimit};w=60`);
        expect(refused.headers.get("ratelimit")).toMatch(/"sign-in";r=0;t=\d+/);
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      }

      // Guesses at one account, each from another address (so no address budget runs out).
      for (let i = 0; i < accountLimit; i++) {
        const res = await signIn(i % 2 === 0 ? b.call : onA, "target@example.test", `192.0.2.${30 + i}`);
        expect(res.status).toBe(401);
        expect(res.headers.get("ratelimit")).toContain(`"sign-in-account";r=${accountLimit - 1 - i};t=`);
      }
      for (const [call, from] of [[onA, "192.0.2.40"], [b.call, "192.0.2.41"]] as const) {
        const refused = await signIn(call, "target@example.test", from);
        expect(refused.status).toBe(429);
        expect(refused.headers.get("ratelimit")).toMatch(/"sign-in-account";r=0;t=\d+/);
        expect(((await refused.json()) as { message: string }).message).toContain("failed passwords for this account");
      }
    });
  });

  describe("revocation reaches a replica that missed the broadcast", () => {
    for (const fault of ["cut", "silence"] as const) {
      test(`a replica whose NATS connection was ${fault === "cut" ? "cut" : "silently dropping everything"} refuses the key right after it is revoked on the other`, async () => {
        const natsPort = Number(new URL(trove.runtime.config.natsUrl!).port || 4222);
        const proxy = await startTcpProxy(natsPort);
        const b = await replica(proxy);
        const { id, apiKey } = await createClient(trove, { name: `revoked while ${fault}` });
        expect((await b.call("/api/session", { key: apiKey })).status).toBe(200);
        // B answers the key from its cache now: no database lookup.
        const cachedAt = b.repo.lookups;
        expect((await b.call("/api/session", { key: apiKey })).status).toBe(200);
        expect(b.repo.lookups).toBe(cachedAt);
        expect((await b.call("/api/connected-clients")).status).toBe(200);

        // Cut: B's client sees its connection close and keeps trying to reconnect. Silenced: B believes it is
        // connected, and the broadcast never arrives.
        proxy[fault]();
        expect((await onA("/api/connected-clients/revoke", { method: "POST", json: { id } })).status).toBe(200);

        // No waiting: B refuses the key at once.
        const refused = await b.call("/api/session", { key: apiKey });
        expect(refused.status).toBe(401);
        expect(((await refused.json()) as { error: string }).error).toBe("unauthorized");
        // Other keys still work there, from its cache (a route the gateway answers itself: B's bus is down).
        const alice = b.repo.lookups;
        expect((await b.call("/api/connected-clients")).status).toBe(200);
        expect(b.repo.lookups).toBe(alice);
      });
    }

    test("while the shared count cannot be written, a key the cache holds is checked in the database: revoked keys are refused, others served", async () => {
      const natsPort = Number(new URL(trove.runtime.config.natsUrl!).port || 4222);
      const proxy = await startTcpProxy(natsPort);
      const b = await replica(proxy);
      const { id, apiKey } = await createClient(trove, { name: "revoked, then the counts fail" });
      expect((await b.call("/api/session", { key: apiKey })).status).toBe(200);
      expect((await b.call("/api/session")).status).toBe(200);
      proxy.silence();
      expect((await onA("/api/connected-clients/revoke", { method: "POST", json: { id } })).status).toBe(200);

      await refuseWrites(trove.db, "gateway", ["rate_limits"]);
      try {
        const lookups = b.repo.lookups;
        const refused = await b.call("/api/session", { key: apiKey });
        expect(refused.status).toBe(401);
        // A database hiccup in the counts does not refuse everything: the count is kept in memory meanwhile.
        const served = await b.call("/api/connected-clients");
        expect(served.status).toBe(200);
        expect(served.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/);
        expect((await b.call("/api/openapi.json", { key: null })).status).toBe(200);
        // Both keys were looked up in the database, not taken from the cache.
        expect(b.repo.lookups - lookups).toBe(2);
        expect(trove.logs.some((l) => String(l.msg).includes("the shared count failed"))).toBe(true);
      } finally {
        await acceptWrites(trove.db, "gateway");
      }
    });
  });
}
