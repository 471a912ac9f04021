// Real: every service in-process on a fresh PGlite and the in-process bus, driven over HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTrove, startPageServer, bobKey, eventually, type ApiResponse, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove();
});
afterAll(() => trove.stop());

describe("authentication", () => {
  test("a missing key answers 401 unauthorized as JSON", async () => {
    const res = await trove.api("/api/items", { key: null });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: "unauthorized", message: expect.any(String) });
  });

  test("an unknown key answers 401", async () => {
    const res = await trove.api("/api/items", { key: "not-a-real-key-123456" });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toBe("unauthorized");
  });

  test("a malformed Authorization header answers 401", async () => {
    const res = await trove.api("/api/me", { key: null, headers: { authorization: "Basic abc" } });
    expect(res.status).toBe(401);
  });

  test("health needs no key and reports database, bus and every service", async () => {
    const res = await trove.api("/api/health", { key: null });
    expect(res.status).toBe(200);
    const body = await res.json();
    const embedded = trove.stack === "embedded";
    expect(body).toMatchObject({
      status: "ok",
      deployment: embedded ? "embedded" : "distributed",
      database: { ok: true, kind: embedded ? "pglite" : "postgres" },
      bus: { ok: true, kind: embedded ? "memory" : "nats" },
    });
    expect(Object.keys(body.services).sort()).toEqual(["delivery", "exports", "items", "notes", "sources"]);
  });

  test("GET /api/ping answers from the items service for a valid key only", async () => {
    const res = await trove.api("/api/ping");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, service: "items", time: expect.any(Number) });
    expect((await trove.api("/api/ping", { key: null })).status).toBe(401);
  });

  test("GET /api/me reports the seeded plan", async () => {
    const res = await trove.api("/api/me", { key: bobKey });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ plan: "free", linkLimit: 3, limitScope: "billing_cycle", linkCount: 0 });
  });
});

describe("errors", () => {
  test("an unknown route answers 404 not_found with message and resolution", async () => {
    const res = await trove.api("/api/nope");
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error).toBe("not_found");
    expect(body.message).toContain("/api/nope");
    expect(body.resolution).toContain("/api/docs");
  });

  test("a wrong type answers 400 validation_failed naming the field", async () => {
    const res = await trove.api("/api/ingest", { method: "POST", json: { url: 42 } });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe("validation_failed");
    expect(Object.keys(body.fields)).toContain("url");
  });

  test("a missing required field answers 400 validation_failed", async () => {
    const res = await trove.api("/api/ingest", { method: "POST", json: {} });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("validation_failed");
  });

  test("malformed JSON answers 400 invalid_json as JSON", async () => {
    const res = await trove.api("/api/ingest", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"url": "https://a.test/',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_json" });
  });

  test("a body over the size limit answers 413 payload_too_large", async () => {
    const small = await startTrove({ TROVE_MAX_BODY_BYTES: "2048" });
    try {
      const res = await small.api("/api/ingest", { method: "POST", json: { url: "https://a.test/", html: "x".repeat(10_000) } });
      expect(res.status).toBe(413);
      expect((await res.json()).error).toBe("payload_too_large");
    } finally {
      await small.stop();
    }
  });

  test("an out-of-range limit answers 400, not a clamp", async () => {
    for (const limit of ["0", "1001", "abc", "-1"]) {
      const res = await trove.api(`/api/items?limit=${limit}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe("validation_failed");
    }
  });

  test("an invalid id answers 400 and a well-formed unknown id 404", async () => {
    const bad = await trove.api("/api/items/" + encodeURIComponent("../etc/passwd"));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "validation_failed", fields: { id: expect.any(String) } });
    const missing = await trove.api("/api/items/0190aaaa-0000-7000-8000-000000000000");
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toBe("not_found");
  });
});

describe("versioning", () => {
  test("every response names the API version", async () => {
    const res = await trove.api("/api/nope");
    expect(res.headers.get("service-api-version")).toBe("2026-08-24");
    const ok = await trove.api("/api/health", { headers: { "Service-API-Version": "2026-08-24" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("service-api-version")).toBe("2026-08-24");
  });

  test("an unknown version answers 400 unsupported_api_version with the supported list", async () => {
    const res = await trove.api("/api/me", { headers: { "Service-API-Version": "1999-01-01" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "unsupported_api_version", supported: ["2026-08-24"] });
  });
});

describe("rate limits", () => {
  test("RateLimit-Policy on every response; 429 with RateLimit and Retry-After past the limit", async () => {
    const limited = await startTrove({ TROVE_RATE_LIMIT: "3" });
    try {
      const statuses: number[] = [];
      let last: ApiResponse | undefined;
      for (let i = 0; i < 4; i++) {
        last = await limited.api("/api/me");
        statuses.push(last.status);
        expect(last.headers.get("ratelimit-policy")).toBe('"default";q=3;w=60');
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect((await last!.json()).error).toBe("rate_limited");
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(last!.headers.get("ratelimit")).toMatch(/^"default";r=0;t=\d+$/);
      // Another credential has its own budget.
      expect((await limited.api("/api/me", { key: bobKey })).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

describe("OpenAPI", () => {
  test("the document is OpenAPI 3.1 with version 0.1.0 and lists the contract's routes", async () => {
    const res = await trove.api("/api/openapi.json", { key: null });
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toStartWith("3.1");
    expect(doc.info.version).toBe("0.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/health", "/api/me", "/api/ingest", "/api/items", "/api/items/{id}"]));
    expect(doc.paths["/api/health"].get.security).toEqual([]);
    expect(doc.paths["/api/items"].get.security).toEqual([{ bearer: [] }]);
  });

  test("the docs UI is served at /api/docs", async () => {
    const res = await trove.api("/api/docs", { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
  });
});

describe("request ids", () => {
  test("the gateway's request id reaches the service's log lines over the bus", async () => {
    const trove = await startTrove({ LOG_LEVEL: "debug" });
    const res = await trove.api("/api/ingest", { method: "POST", json: { url: "https://reqid.test/page" }, headers: { "x-request-id": "trace-me-123" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("trace-me-123");
    const lines = () => trove.logs.filter((l) => l.reqId === "trace-me-123");
    // The access line is written once the response has gone out.
    await eventually(() => lines().some((l) => l.service === "gateway" && l.msg === "request"));
    expect(lines().some((l) => l.service === "items" && l.msg === "handled")).toBe(true);
    await trove.stop();
  });
});

describe("production pass-through (responses not re-validated)", () => {
  test("service JSON passes through with every gateway header, and errors keep their codes", async () => {
    const fast = await startTrove({ TROVE_VALIDATE_RESPONSES: "0" });
    try {
      const saved = await (await fast.api("/api/ingest", { method: "POST", json: { url: "https://pass.example.test/", html: "<p>pass through</p>" } })).json();
      const res = await fast.api(`/api/items/${saved.id}`, { headers: { "x-request-id": "pass-1" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/json");
      for (const h of ["service-api-version", "ratelimit-policy", "ratelimit"]) expect(res.headers.get(h)).toBeTruthy();
      expect(res.headers.get("x-request-id")).toBe("pass-1");
      expect(await res.json()).toMatchObject({ id: saved.id, url: "https://pass.example.test/", tags: [] });
      const missing = await fast.api("/api/items/0190aaaa-0000-7000-8000-000000000000");
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ error: "not_found" });
      const quota = await fast.api("/api/items?status=nope");
      expect(quota.status).toBe(400);
      expect((await quota.json()).fields.status).toBeString();
    } finally {
      await fast.stop();
    }
  });
});

describe("graceful stop", () => {
  test("a request in flight when the stop begins still gets its full answer; new connections are refused", async () => {
    const pages = startPageServer();
    const stopping = await startTrove({ TROVE_INGEST_WAIT_MS: "20000" });
    const { url } = stopping;
    const health = () =>
      fetch(`${url}/api/health`).then(
        (r) => r.status,
        () => "refused" as const,
      );
    try {
      // /held answers only when released: the save is in flight (its page requested) until the test says so.
      const inFlight = stopping.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/held` } });
      await pages.reached("/held");
      const stopped = stopping.stop();
      // The stop has begun once the gateway refuses new connections; only then may the page answer.
      await eventually(async () => (await health()) === "refused");
      pages.release();
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ ok: true, extracted: true });
      await stopped;
      expect(await health()).toBe("refused");
    } finally {
      pages.stop();
    }
  });
});
