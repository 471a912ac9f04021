// Which address the gateway takes for the client, seen where a user sees it: the address a new session records
// (its sign-in answer and the session list) and the per-address budgets. Real: two whole Troves (PGlite + the
// in-process bus, or PostgreSQL + NATS), one trusting loopback as its proxy (TROVE_TRUSTED_PROXIES), one trusting
// none (the default); every request comes from 127.0.0.1.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { aliceKey, bobKey, startTrove, type TestTrove } from "@trove/testing";

const signInLimit = 3;
let direct: TestTrove;
let proxied: TestTrove;
beforeAll(async () => {
  [direct, proxied] = await Promise.all([
    startTrove({ TROVE_SIGN_IN_LIMIT: String(signInLimit) }),
    startTrove({ TROVE_SIGN_IN_LIMIT: String(signInLimit), TROVE_TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1" }),
  ]);
});
afterAll(async () => {
  await Promise.all([direct?.stop(), proxied?.stop()]);
});

/** Signs in with a personal key, sending `headers`; the answer's status, the session's address, the sign-in budget left. */
async function signIn(trove: TestTrove, headers: Record<string, string>, key = aliceKey) {
  const res = await fetch(`${trove.url}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ key }),
  });
  const body = (await res.json()) as { session?: { address: string | null } };
  const left = /"sign-in";r=(\d+)/.exec(res.headers.get("ratelimit") ?? "")?.[1];
  return { status: res.status, address: body.session?.address, left: left === undefined ? undefined : Number(left) };
}

describe("with no trusted proxy (the default)", () => {
  test("a client's X-Forwarded-For or Forwarded is ignored: it neither names the session's address nor buys a fresh budget", async () => {
    const spoofs: Record<string, string>[] = [{ "x-forwarded-for": "203.0.113.1" }, { forwarded: "for=203.0.113.2" }, { "x-forwarded-for": "203.0.113.3, 10.0.0.1" }];
    for (const [i, spoof] of spoofs.entries()) {
      const answer = await signIn(direct, spoof);
      expect(answer).toEqual({ status: 200, address: "127.0.0.1", left: signInLimit - 1 - i });
    }
    const refused = await signIn(direct, { "x-forwarded-for": "203.0.113.4" });
    expect(refused.status).toBe(429);
    const sessions = await direct.api("/api/sessions");
    const listed = ((await sessions.json()) as { sessions: { address: string | null }[] }).sessions;
    expect(listed.map((s) => s.address)).toEqual(spoofs.map(() => "127.0.0.1"));
  });
});

describe("behind a trusted proxy", () => {
  test("the address the proxy reports is the client's, in X-Forwarded-For or Forwarded; what the client wrote before it is not", async () => {
    expect((await signIn(proxied, { "x-forwarded-for": "198.51.100.10" }, bobKey)).address).toBe("198.51.100.10");
    // The client wrote X-Forwarded-For: 1.1.1.1 and the proxy appended the address it saw.
    expect((await signIn(proxied, { "x-forwarded-for": "1.1.1.1, 198.51.100.11" }, bobKey)).address).toBe("198.51.100.11");
    // Two trusted proxies (10.0.0.5 forwarded to loopback): the hop before the first is the client.
    expect((await signIn(proxied, { "x-forwarded-for": "198.51.100.12, 10.0.0.5" }, bobKey)).address).toBe("198.51.100.12");
    expect((await signIn(proxied, { forwarded: 'for="[2001:db8::12]:4711";proto=https' }, bobKey)).address).toBe("2001:db8::12");
    // No header: the proxy itself is the client.
    expect((await signIn(proxied, {}, bobKey)).address).toBe("127.0.0.1");
  });

  test("each client behind the proxy has its own budget: one client's sign-ins do not hold back another's", async () => {
    for (let i = 0; i < signInLimit; i++) {
      expect(await signIn(proxied, { "x-forwarded-for": "198.51.100.20" })).toEqual({ status: 200, address: "198.51.100.20", left: signInLimit - 1 - i });
    }
    expect((await signIn(proxied, { "x-forwarded-for": "198.51.100.20" })).status).toBe(429);
    // The client cannot get out of it by writing another address before the one the proxy appends.
    expect((await signIn(proxied, { "x-forwarded-for": "198.51.100.99, 198.51.100.20" })).status).toBe(429);
    expect(await signIn(proxied, { "x-forwarded-for": "198.51.100.21" })).toEqual({ status: 200, address: "198.51.100.21", left: signInLimit - 1 });
  });
});
