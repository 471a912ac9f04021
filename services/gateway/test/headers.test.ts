// Every response of the gateway carries X-Content-Type-Options: nosniff, whatever produced it: the gateway itself,
// JSON passed through from a service, a raw reply (Markdown, an image), the docs, or an error of any kind.
// Real: whole Troves over HTTP on 127.0.0.1 (the stack named by TROVE_TEST_STACK) and a local page server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addClientKey, aliceKey, bobKey, startTrove, type TestTrove } from "@trove/testing";

const png = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e2a4a20000000049454e44ae426082",
  "hex",
);
const json = /^application\/json/;
let readOnlyKey: string;

let trove: TestTrove; // responses checked against the contract; small body limit for 413
let passThrough: TestTrove; // service JSON passed through unparsed; a rate limit of 3 for 429
let itemId = "";
let mediaUrl = "";

beforeAll(async () => {
  [trove, passThrough] = await Promise.all([
    startTrove({ TROVE_MAX_BODY_BYTES: "4096" }),
    startTrove({ TROVE_VALIDATE_RESPONSES: "0", TROVE_RATE_LIMIT: "3" }),
  ]);
  const saved = await trove.api("/api/ingest", { method: "POST", json: { url: "https://nosniff.example.test/a", html: "<h1>Sniff</h1><p>Not today.</p>" } });
  itemId = (await saved.json()).id;
  const up = await trove.api(`/api/items/${itemId}/media`, { method: "POST", json: { contentType: "image/png", dataBase64: png.toString("base64") } });
  mediaUrl = (await up.json()).media.url;
  readOnlyKey = await addClientKey(trove, { access: "read_only" });
});
afterAll(async () => {
  await Promise.all([trove?.stop(), passThrough?.stop()]);
});

function expectNosniff(res: Response, status: number, contentType: string | RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type") ?? "").toMatch(contentType);
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
}

describe("X-Content-Type-Options: nosniff", () => {
  test("on successes: the gateway's own reply, service JSON checked against the contract and passed through", async () => {
    expectNosniff(await trove.api("/api/health", { key: null }), 200, json);
    expectNosniff(await trove.api(`/api/items/${itemId}`), 200, json);
    expectNosniff(await trove.api("/api/items?limit=5"), 200, json);
    const saved = await passThrough.api("/api/ingest", { method: "POST", json: { url: "https://nosniff.example.test/b", html: "<p>passed through</p>" } });
    expectNosniff(saved, 200, json);
    expectNosniff(await passThrough.api(`/api/items/${(await saved.json()).id}`), 200, json);
  });

  test("on raw replies: Markdown and an uploaded image", async () => {
    const md = await trove.api(`/api/items/${itemId}/content`);
    expectNosniff(md, 200, /^text\/markdown/);
    expect(await md.text()).toContain("Not today.");
    const image = await trove.api(mediaUrl);
    expectNosniff(image, 200, /^image\/png$/);
    expect(Buffer.from(await image.arrayBuffer()).equals(png)).toBe(true);
  });

  test("on the OpenAPI document, the docs page and its assets", async () => {
    expectNosniff(await trove.api("/api/openapi.json", { key: null }), 200, json);
    const page = await trove.api("/api/docs", { key: null });
    expectNosniff(page, 200, /^text\/html/);
    const script = /<script src="([^"]+)"/.exec(await page.text())?.[1];
    expect(script).toStartWith("/api/docs/");
    expectNosniff(await trove.api(script!, { key: null }), 200, /^text\/javascript/);
  });

  test("on 400: validation, malformed JSON, an unknown API version", async () => {
    expectNosniff(await trove.api("/api/ingest", { method: "POST", json: { url: 42 } }), 400, json);
    expectNosniff(await trove.api("/api/ingest", { method: "POST", headers: { "content-type": "application/json" }, body: "{" }), 400, json);
    expectNosniff(await trove.api("/api/me", { headers: { "service-api-version": "1999-01-01" } }), 400, json);
  });

  test("on 401 (no key, unknown key) and 403 (a read-only key writing)", async () => {
    expectNosniff(await trove.api("/api/items", { key: null }), 401, json);
    expectNosniff(await trove.api("/api/items", { key: "not-a-real-key-123456" }), 401, json);
    const denied = await trove.api("/api/ingest", { key: readOnlyKey, method: "POST", json: { url: "https://nosniff.example.test/c" } });
    expectNosniff(denied, 403, json);
    expect((await denied.json()).error).toBe("forbidden");
  });

  test("on 404: no such route, no such item, no such docs asset", async () => {
    expectNosniff(await trove.api("/api/nope"), 404, json);
    expectNosniff(await trove.api("/api/items/0190aaaa-0000-7000-8000-000000000000"), 404, json);
    expectNosniff(await trove.api("/api/docs/assets/0000000000000000/swagger-ui-bundle.js", { key: null }), 404, json);
  });

  test("on 413: a body over TROVE_MAX_BODY_BYTES", async () => {
    const res = await trove.api("/api/ingest", { method: "POST", json: { url: "https://nosniff.example.test/d", html: "x".repeat(10_000) } });
    expectNosniff(res, 413, json);
    expect((await res.json()).error).toBe("payload_too_large");
  });

  test("on 429: past the rate limit", async () => {
    // Bob's own budget of 3 on this Trove; unknown routes spend it without touching a service.
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await passThrough.api("/api/nope", { key: bobKey });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
    expectNosniff(last!, 429, json);
  });
});

describe("X-Content-Type-Options: nosniff on 5xx", () => {
  // A page that answers only when the test lets it: the save waits for it past the gateway's request timeout.
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let hanging: ReturnType<typeof Bun.serve> | undefined;
  let slow: TestTrove | undefined;

  afterAll(async () => {
    release();
    await slow?.stop();
    hanging?.stop(true);
  });

  test("a service that does not answer in time gives 504 timeout", async () => {
    hanging = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch() {
        await released;
        return new Response("<p>late</p>", { headers: { "content-type": "text/html" } });
      },
    });
    slow = await startTrove({ TROVE_REQUEST_TIMEOUT_MS: "100", TROVE_INGEST_WAIT_MS: "60000" });
    const res = await slow.api("/api/ingest", { key: aliceKey, method: "POST", json: { url: `http://127.0.0.1:${hanging.port}/page` } });
    expectNosniff(res, 504, json);
    expect((await res.json()).error).toBe("timeout");
  });
});
