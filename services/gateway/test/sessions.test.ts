// Sign-in and browser sessions, over HTTP against a whole Trove (both deployments): the password set through
// TROVE_SEED_ACCOUNTS, the HttpOnly cookie as the account's personal credential, CSRF tokens on writes, requests
// from other sites refused, the sign-in budgets (per address, and per account from many loopback addresses),
// sign-out, listing and ending sessions, expiry and idle expiry, setting the password (with the current one);
// bearer keys unchanged.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { request as httpRequest } from "node:http";
import { addClientKey, aliceKey, bobKey, startTrove, type TestTrove } from "@trove/testing";

const alicePassword = "alice's long passphrase";
const idleHours = 2;
let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({
    TROVE_SEED_ACCOUNTS: JSON.stringify([
      { email: "alice@example.test", apiKey: aliceKey, password: alicePassword },
      { email: "bob@example.test", apiKey: bobKey },
    ]),
    TROVE_SIGN_IN_LIMIT: "1000",
    TROVE_SIGN_IN_ACCOUNT_LIMIT: "1000",
    TROVE_SESSION_IDLE_HOURS: String(idleHours),
  });
});
afterAll(() => trove.stop());

const evil = "http://evil.test";
const nowSeconds = () => Math.floor(Date.now() / 1000);

interface SignedIn {
  cookie: string;
  setCookie: string;
  csrf: string;
  sessionId: string;
}

async function signIn(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<SignedIn> {
  const res = await trove.api("/api/session", { method: "POST", key: null, json: body, headers });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${JSON.stringify(json)}`);
  const setCookie = res.headers.get("set-cookie") ?? "";
  return { cookie: setCookie.split(";")[0]!, setCookie, csrf: json.csrfToken, sessionId: json.session.id };
}

/** A request made the way the browser app makes it: the cookie, and the CSRF token on writes. */
function asBrowser(s: SignedIn, path: string, init: RequestInit & { json?: unknown; csrf?: string | null } = {}) {
  const { csrf = s.csrf, ...rest } = init;
  const headers: Record<string, string> = { cookie: s.cookie };
  if (csrf !== null && rest.method && rest.method !== "GET") headers["x-csrf-token"] = csrf;
  return trove.api(path, { ...rest, key: null, headers });
}

/** A sign-in sent from one loopback address (127.0.0.x): the budgets count per address as the server sees it. */
function signInFrom(trove: TestTrove, address: string, body: unknown): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  const { hostname, port } = new URL(trove.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port: Number(port), path: "/api/session", method: "POST", localAddress: address, headers: { "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

describe("signing in", () => {
  test("email and password set an HttpOnly, SameSite=Lax session cookie; Secure when the request came over HTTPS", async () => {
    const s = await signIn({ email: "Alice@Example.test", password: alicePassword });
    expect(s.setCookie).toMatch(/^trove_session=trove_s_[A-Za-z0-9_-]{40,}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const secure = await signIn({ email: "alice@example.test", password: alicePassword }, { "x-forwarded-proto": "https" });
    expect(secure.setCookie).toEndWith("; Secure");
    const me = await (await asBrowser(s, "/api/session")).json();
    expect(me).toMatchObject({ account: { email: "alice@example.test" }, session: { id: s.sessionId, current: true }, csrfToken: s.csrf });
  });

  test("a wrong password, an unknown email and an account without a password answer the same 401", async () => {
    const answers = await Promise.all(
      [
        { email: "alice@example.test", password: "not the passphrase" },
        { email: "nobody@example.test", password: alicePassword },
        { email: "bob@example.test", password: "anything at all" },
      ].map(async (json) => {
        const res = await trove.api("/api/session", { method: "POST", key: null, json });
        return { status: res.status, body: await res.json(), cookie: res.headers.get("set-cookie") };
      }),
    );
    for (const a of answers) expect(a).toEqual({ status: 401, body: { error: "unauthorized", message: answers[0]!.body.message }, cookie: null });
  });

  test("a sign-in names email and password, or a key: anything else answers 400", async () => {
    for (const json of [{}, { email: "alice@example.test" }, { password: alicePassword }, { email: "alice@example.test", password: alicePassword, key: aliceKey }]) {
      const res = await trove.api("/api/session", { method: "POST", key: null, json });
      expect({ json, status: res.status, error: (await res.json()).error }).toEqual({ json, status: 400, error: "validation_failed" });
    }
  });

  test("a personal key signs in as its account; a connected client's key does not", async () => {
    const s = await signIn({ key: bobKey });
    expect((await (await asBrowser(s, "/api/session")).json()).account.email).toBe("bob@example.test");
    const clientKey = await addClientKey(trove);
    const res = await trove.api("/api/session", { method: "POST", key: null, json: { key: clientKey } });
    expect(res.status).toBe(401);
  });

  test("at most TROVE_SIGN_IN_LIMIT sign-in starts per address in 60 s, good or bad; then 429 with Retry-After and RateLimit", async () => {
    const limited = await startTrove({ TROVE_SIGN_IN_LIMIT: "3" });
    try {
      const answers: { status: number; policy: string | null; limit: string | null; retryAfter: string | null }[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await limited.api("/api/session", { method: "POST", key: null, json: i % 2 ? { key: aliceKey } : { email: "x@example.test", password: "wrong" } });
        answers.push({ status: res.status, policy: res.headers.get("ratelimit-policy"), limit: res.headers.get("ratelimit"), retryAfter: res.headers.get("retry-after") });
      }
      expect(answers.map((a) => a.status)).toEqual([401, 200, 401, 429, 429]);
      // Every answer names the sign-in budget beside the request budget; the refusals say when to come back.
      for (const a of answers) expect(a.policy).toStartWith(`"default";q=300;w=60, "sign-in";q=3;w=60`);
      expect(answers.map((a) => /"sign-in";r=(\d+);t=\d+/.exec(a.limit ?? "")?.[1])).toEqual(["2", "1", "0", "0", "0"]);
      expect(answers.slice(0, 3).map((a) => a.retryAfter)).toEqual([null, null, null]);
      for (const a of answers.slice(3)) expect(Number(a.retryAfter)).toBeWithin(1, 61);
      // Bearer keys are not affected by the sign-in budget.
      expect((await limited.api("/api/me")).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });

  test("failed passwords are budgeted per account, whatever the address: one email tried from many addresses gets 429", async () => {
    const limited = await startTrove({
      TROVE_SEED_ACCOUNTS: JSON.stringify([
        { email: "alice@example.test", apiKey: aliceKey, password: alicePassword },
        { email: "bob@example.test", apiKey: bobKey, password: "bob's own passphrase" },
      ]),
      TROVE_SIGN_IN_LIMIT: "2",
      TROVE_SIGN_IN_ACCOUNT_LIMIT: "3",
    });
    try {
      // A right password gives its point back: only failures count.
      expect((await signInFrom(limited, "127.0.0.2", { email: "alice@example.test", password: alicePassword })).status).toBe(200);
      // Three wrong guesses, each from a fresh address (each address has budget left), then the right password from
      // a fourth: refused unchecked until the window ends.
      const guesses = await Promise.all(["127.0.0.3", "127.0.0.4", "127.0.0.5"].map((a) => signInFrom(limited, a, { email: "Alice@example.test", password: "guess" })));
      expect(guesses.map((g) => g.status)).toEqual([401, 401, 401]);
      const refused = await signInFrom(limited, "127.0.0.6", { email: "alice@example.test", password: alicePassword });
      expect(refused).toMatchObject({ status: 429, body: { error: "rate_limited" } });
      expect(refused.headers["set-cookie"]).toBeUndefined();
      expect(refused.headers["ratelimit-policy"]).toBe(`"default";q=300;w=60, "sign-in";q=2;w=60, "sign-in-account";q=3;w=900`);
      expect(refused.headers["ratelimit"]).toMatch(/"sign-in-account";r=0;t=\d+$/);
      expect(Number(refused.headers["retry-after"])).toBeWithin(1, 901);
      // Another account from the same addresses is not held back, nor is alice's personal key.
      expect((await signInFrom(limited, "127.0.0.6", { email: "bob@example.test", password: "bob's own passphrase" })).status).toBe(200);
      expect((await signInFrom(limited, "127.0.0.7", { key: aliceKey })).status).toBe(200);
      // An unknown email is budgeted the same way, so the answers tell nothing of which accounts exist.
      const unknown = [];
      for (const a of ["127.0.0.8", "127.0.0.9", "127.0.0.10", "127.0.0.11"]) unknown.push((await signInFrom(limited, a, { email: "nobody@example.test", password: "guess" })).status);
      expect(unknown).toEqual([401, 401, 401, 429]);
    } finally {
      await limited.stop();
    }
  });
});

describe("signing in from another site", () => {
  const aliceJson = { email: "alice@example.test", password: alicePassword };
  const signInWith = (headers: Record<string, string>, body: string = JSON.stringify(aliceJson)) =>
    trove.api("/api/session", { method: "POST", key: null, body, headers: { "content-type": "application/json", ...headers } });

  test("a form posted from another site sets no cookie (it signed the visitor in); sign-in takes JSON only", async () => {
    const form = "email=alice%40example.test&password=" + encodeURIComponent(alicePassword);
    const formType = { "content-type": "application/x-www-form-urlencoded" };
    const crossSite = await signInWith({ ...formType, origin: evil }, form);
    expect({ status: crossSite.status, error: (await crossSite.json()).error, cookie: crossSite.headers.get("set-cookie") }).toEqual({ status: 403, error: "csrf_failed", cookie: null });
    // Not as a form from anywhere, nor as the text/plain a form can also send.
    for (const [headers, body] of [[{ ...formType, origin: new URL(trove.url).origin }, form], [formType, form], [{ "content-type": "text/plain" }, JSON.stringify(aliceJson)]] as const) {
      const res = await signInWith(headers, body);
      expect({ headers, status: res.status, error: (await res.json()).error, cookie: res.headers.get("set-cookie") }).toEqual({ headers, status: 415, error: "unsupported_media_type", cookie: null });
    }
  });

  test("a JSON sign-in that a page on another site sent is refused by its Origin or Sec-Fetch-Site", async () => {
    const crossSite: Record<string, string>[] = [{ origin: evil }, { origin: "null" }, { "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }, { origin: new URL(trove.url).origin, "sec-fetch-site": "cross-site" }];
    for (const headers of crossSite) {
      const res = await signInWith(headers);
      expect({ headers, status: res.status, error: (await res.json()).error, cookie: res.headers.get("set-cookie") }).toEqual({ headers, status: 403, error: "csrf_failed", cookie: null });
    }
  });

  test("the app's own page (also behind a proxy that rewrites Host), a proxy's forwarded host, and curl (no Origin) still sign in", async () => {
    const own: Record<string, string>[] = [
      { origin: new URL(trove.url).origin, "sec-fetch-site": "same-origin" },
      // The browser's own word: the page and the request share an origin, whatever Host the proxy passed on.
      { origin: "https://trove.example.test", "sec-fetch-site": "same-origin" },
      { origin: "https://trove.example.test", "x-forwarded-host": "trove.example.test", "x-forwarded-proto": "https" },
      { "sec-fetch-site": "none" },
      {},
    ];
    for (const headers of own) {
      const res = await signInWith(headers);
      expect({ headers, status: res.status }).toEqual({ headers, status: 200 });
      expect(res.headers.get("set-cookie")).toStartWith("trove_session=trove_s_");
    }
  });

  test("over a live session, a cross-site sign-in into another account neither signs in nor ends the session", async () => {
    await trove.api("/api/account/password", { method: "POST", key: bobKey, json: { password: "bob's own passphrase" } });
    const alice = await signIn(aliceJson);
    const res = await trove.api("/api/session", {
      method: "POST",
      key: null,
      json: { email: "bob@example.test", password: "bob's own passphrase" },
      headers: { cookie: alice.cookie, origin: evil },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect((await (await asBrowser(alice, "/api/session")).json()).account.email).toBe("alice@example.test");
  });
});

describe("the session cookie", () => {
  test("acts as the account's personal key, personal-only routes included", async () => {
    const s = await signIn({ email: "alice@example.test", password: alicePassword });
    expect((await asBrowser(s, "/api/items")).status).toBe(200);
    expect((await asBrowser(s, "/api/connected-clients")).status).toBe(200);
    expect((await asBrowser(s, "/api/items/changes")).status).toBe(200);
  });

  test("writes need the session's CSRF token in X-CSRF-Token; reads do not", async () => {
    const s = await signIn({ email: "alice@example.test", password: alicePassword });
    const json = { url: "https://csrf.example.test/a", html: "<html><head><title>A</title></head><body><p>Some text to keep.</p></body></html>" };
    const missing = await asBrowser(s, "/api/ingest", { method: "POST", json, csrf: null });
    expect(missing.status).toBe(403);
    expect((await missing.json()).error).toBe("csrf_failed");
    // One character off (never the same character: the token is random base64url).
    const off = s.csrf.endsWith("x") ? "y" : "x";
    const wrong = await asBrowser(s, "/api/ingest", { method: "POST", json, csrf: `${s.csrf.slice(0, -1)}${off}` });
    expect(wrong.status).toBe(403);
    const other = await signIn({ email: "alice@example.test", password: alicePassword });
    expect((await asBrowser(s, "/api/ingest", { method: "POST", json, csrf: other.csrf })).status).toBe(403);
    // Nothing was saved by the refused writes.
    const urls = async () => ((await (await trove.api("/api/items?limit=1000")).json()).items as { url: string }[]).map((i) => i.url);
    expect(await urls()).not.toContain(json.url);
    expect((await asBrowser(s, "/api/ingest", { method: "POST", json })).status).toBe(200);
    expect(await urls()).toContain(json.url);
  });

  test("signing out ends the session on the server and clears the cookie", async () => {
    const s = await signIn({ email: "alice@example.test", password: alicePassword });
    const out = await asBrowser(s, "/api/session", { method: "DELETE" });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^trove_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0$/);
    const after = await asBrowser(s, "/api/items");
    expect(after.status).toBe(401);
    expect((await after.json()).message).toContain("sign in again");
  });

  test("an expired session no longer works", async () => {
    const s = await signIn({ email: "alice@example.test", password: alicePassword });
    await trove.db.updateTable("gateway.sessions").set({ expires_at: Math.floor(Date.now() / 1000) - 1 }).where("id", "=", s.sessionId).execute();
    expect((await asBrowser(s, "/api/items")).status).toBe(401);
  });

  test("a session unused for TROVE_SESSION_IDLE_HOURS ends before its lifetime; one in use stays, its end moving on", async () => {
    const idle = await signIn({ email: "alice@example.test", password: alicePassword }, { "user-agent": "Idle browser" });
    const used = await signIn({ email: "alice@example.test", password: alicePassword }, { "user-agent": "Used browser" });
    const idleSeconds = idleHours * 3600;
    // As if signed in long ago: one last used just past the idle time, the other just within it.
    const setLastUse = (id: string, at: number) => trove.db.updateTable("gateway.sessions").set({ created_at: at, last_used_at: at }).where("id", "=", id).execute();
    await setLastUse(idle.sessionId, nowSeconds() - idleSeconds - 5);
    await setLastUse(used.sessionId, nowSeconds() - idleSeconds + 300);
    const listed = ((await (await trove.api("/api/sessions")).json()).sessions as { id: string; expiresAt: number; lastUsedAt: number }[]).filter((x) => [idle.sessionId, used.sessionId].includes(x.id));
    expect(listed.map((x) => x.id)).toEqual([used.sessionId]);
    // Listed as ending when its idle time runs out, well before its 30 days.
    expect(listed[0]!.expiresAt).toBe(listed[0]!.lastUsedAt + idleSeconds);
    const after = await asBrowser(idle, "/api/items");
    expect(after.status).toBe(401);
    expect((await after.json()).message).toContain("sign in again");
    expect((await asBrowser(used, "/api/items")).status).toBe(200);
    // Using it moved its last use (and so its end) to now.
    const me = (await (await asBrowser(used, "/api/session")).json()).session;
    expect(me.lastUsedAt).toBeGreaterThanOrEqual(nowSeconds() - 60);
    expect(me.expiresAt).toBe(me.lastUsedAt + idleSeconds);
  });

  test("the cookie is refused on requests a page on another site makes, reads and writes alike; keys are not", async () => {
    const s = await signIn({ email: "alice@example.test", password: alicePassword });
    const json = { url: "https://cross.example.test/a", html: "<html><head><title>A</title></head><body><p>Some text to keep.</p></body></html>" };
    const crossSite: Record<string, string>[] = [{ origin: evil }, { "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }];
    for (const headers of crossSite) {
      const read = await trove.api("/api/items", { key: null, headers: { cookie: s.cookie, ...headers } });
      expect({ headers, status: read.status, error: (await read.json()).error }).toEqual({ headers, status: 403, error: "csrf_failed" });
      const write = await trove.api("/api/ingest", { method: "POST", key: null, json, headers: { cookie: s.cookie, "x-csrf-token": s.csrf, ...headers } });
      expect({ headers, status: write.status }).toEqual({ headers, status: 403 });
      // Signing out from another site does not end the session either.
      const out = await trove.api("/api/session", { method: "DELETE", key: null, headers: { cookie: s.cookie, "x-csrf-token": s.csrf, ...headers } });
      expect({ headers, status: out.status, cookie: out.headers.get("set-cookie") }).toEqual({ headers, status: 403, cookie: null });
    }
    const urls = ((await (await trove.api("/api/items?limit=1000")).json()).items as { url: string }[]).map((i) => i.url);
    expect(urls).not.toContain(json.url);
    expect((await asBrowser(s, "/api/items")).status).toBe(200);
    // The app's own pages: same origin, or typed into the address bar.
    const own: Record<string, string>[] = [{ origin: new URL(trove.url).origin, "sec-fetch-site": "same-origin" }, { "sec-fetch-site": "none" }];
    for (const headers of own) {
      expect((await trove.api("/api/items", { key: null, headers: { cookie: s.cookie, ...headers } })).status).toBe(200);
    }
    // A bearer key is not a cookie: another site's script that holds one (CORS aside) is not refused here.
    expect((await trove.api("/api/items", { headers: { origin: evil, "sec-fetch-site": "cross-site" } })).status).toBe(200);
  });

  test("a made-up cookie is no credential, and a bearer key beside a cookie wins", async () => {
    const res = await trove.api("/api/items", { key: null, headers: { cookie: "trove_session=trove_s_madeup" } });
    expect(res.status).toBe(401);
    const s = await signIn({ email: "alice@example.test", password: alicePassword });
    const both = await trove.api("/api/session", { key: bobKey, headers: { cookie: s.cookie } });
    expect(await both.json()).toMatchObject({ account: { email: "bob@example.test" }, session: null, csrfToken: null });
  });
});

describe("managing sessions", () => {
  test("the account's live sessions are listed, the current one marked; ending one stops its cookie at once", async () => {
    const phone = await signIn({ email: "alice@example.test", password: alicePassword }, { "user-agent": "Phone browser" });
    const laptop = await signIn({ email: "alice@example.test", password: alicePassword }, { "user-agent": "Laptop browser" });
    const listed = (await (await asBrowser(laptop, "/api/sessions")).json()).sessions as { id: string; current: boolean; userAgent: string }[];
    expect(listed.find((x) => x.id === laptop.sessionId)).toMatchObject({ current: true, userAgent: "Laptop browser" });
    expect(listed.find((x) => x.id === phone.sessionId)).toMatchObject({ current: false, userAgent: "Phone browser" });
    expect((await asBrowser(laptop, "/api/sessions/revoke", { method: "POST", json: { id: phone.sessionId } })).status).toBe(200);
    expect((await asBrowser(phone, "/api/items")).status).toBe(401);
    expect((await asBrowser(laptop, "/api/items")).status).toBe(200);
    // Bob cannot see or end alice's sessions.
    expect(JSON.stringify(await (await trove.api("/api/sessions", { key: bobKey })).json())).not.toContain(laptop.sessionId);
    expect((await trove.api("/api/sessions/revoke", { method: "POST", key: bobKey, json: { id: laptop.sessionId } })).status).toBe(404);
    expect((await asBrowser(laptop, "/api/items")).status).toBe(200);
  });

  test("setting the password ends the other sessions; the new password signs in, the old does not", async () => {
    const here = await signIn({ email: "alice@example.test", password: alicePassword });
    const elsewhere = await signIn({ email: "alice@example.test", password: alicePassword });
    const newPassword = "a brand new passphrase";
    expect((await asBrowser(here, "/api/account/password", { method: "POST", json: { password: newPassword, currentPassword: alicePassword } })).status).toBe(200);
    expect((await asBrowser(elsewhere, "/api/items")).status).toBe(401);
    expect((await asBrowser(here, "/api/items")).status).toBe(200);
    expect((await trove.api("/api/session", { method: "POST", key: null, json: { email: "alice@example.test", password: alicePassword } })).status).toBe(401);
    await signIn({ email: "alice@example.test", password: newPassword });
    // A connected client cannot set it; a short password is refused.
    expect((await trove.api("/api/account/password", { method: "POST", key: await addClientKey(trove), json: { password: "whatever it is long", currentPassword: newPassword } })).status).toBe(403);
    expect((await trove.api("/api/account/password", { method: "POST", json: { password: "short", currentPassword: newPassword } })).status).toBe(400);
    // Put the seeded one back for the other tests.
    expect((await trove.api("/api/account/password", { method: "POST", json: { password: alicePassword, currentPassword: newPassword } })).status).toBe(200);
  });

  test("a stolen session cannot change the password: the current one is required, and a wrong one changes nothing", async () => {
    const owner = await signIn({ email: "alice@example.test", password: alicePassword });
    const thief = await signIn({ email: "alice@example.test", password: alicePassword });
    const change = (json: unknown) => asBrowser(thief, "/api/account/password", { method: "POST", json });
    const missing = await change({ password: "the thief's passphrase" });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: "validation_failed", fields: { currentPassword: expect.any(String) } });
    const wrong = await change({ password: "the thief's passphrase", currentPassword: "a guess at it" });
    expect(wrong.status).toBe(403);
    expect((await wrong.json()).error).toBe("forbidden");
    // Nothing changed: the owner's session lives on and the password still signs in; the thief's does not.
    expect((await asBrowser(owner, "/api/items")).status).toBe(200);
    await signIn({ email: "alice@example.test", password: alicePassword });
    expect((await trove.api("/api/session", { method: "POST", key: null, json: { email: "alice@example.test", password: "the thief's passphrase" } })).status).toBe(401);
    // The personal key alone is not enough either.
    expect((await trove.api("/api/account/password", { method: "POST", json: { password: "the thief's passphrase" } })).status).toBe(400);
  });

  test("an account without a password sets its first one without currentPassword", async () => {
    const carol = await startTrove({ TROVE_SEED_ACCOUNTS: JSON.stringify([{ email: "carol@example.test", apiKey: aliceKey }]) });
    try {
      const set = await carol.api("/api/account/password", { method: "POST", json: { password: "carol's first passphrase" } });
      expect(set.status).toBe(200);
      expect((await carol.api("/api/session", { method: "POST", key: null, json: { email: "carol@example.test", password: "carol's first passphrase" } })).status).toBe(200);
      // From then on it asks for it.
      expect((await carol.api("/api/account/password", { method: "POST", json: { password: "carol's second passphrase" } })).status).toBe(400);
    } finally {
      await carol.stop();
    }
  });

  test("wrong current passwords spend the account's budget of failed passwords, like sign-ins", async () => {
    const limited = await startTrove({
      TROVE_SEED_ACCOUNTS: JSON.stringify([{ email: "alice@example.test", apiKey: aliceKey, password: alicePassword }]),
      TROVE_SIGN_IN_ACCOUNT_LIMIT: "2",
    });
    try {
      const statuses: number[] = [];
      for (const currentPassword of ["guess one", "guess two", alicePassword]) {
        const res = await limited.api("/api/account/password", { method: "POST", json: { password: "the thief's passphrase", currentPassword } });
        statuses.push(res.status);
        if (res.status === 429) expect(res.headers.get("ratelimit-policy")).toContain(`"sign-in-account";q=2;w=900`);
      }
      expect(statuses).toEqual([403, 403, 429]);
      // The password is unchanged, and sign-in to the account is held back too.
      expect((await limited.api("/api/session", { method: "POST", key: null, json: { email: "alice@example.test", password: alicePassword } })).status).toBe(429);
    } finally {
      await limited.stop();
    }
  });
});

describe("bearer keys and CORS", () => {
  test("keys work exactly as before, and no other origin is let in", async () => {
    expect((await trove.api("/api/items")).status).toBe(200);
    const preflight = await fetch(`${trove.url}/api/items`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example.test", "access-control-request-method": "POST", "access-control-request-headers": "x-csrf-token" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });
});
