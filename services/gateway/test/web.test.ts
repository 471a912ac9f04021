// The web app as the gateway serves it, over HTTP (no browser): the shell for every path that is not the API,
// never cached and locked to its origin by its Content-Security-Policy; hashed assets cached for a year and
// gzipped when asked; the API's unknown paths and other methods still the JSON 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove();
});
afterAll(() => trove.stop());

describe("the web app's files", () => {
  test("every non-API path answers the HTML shell, never cached, scripts and connections from the origin only", async () => {
    for (const path of ["/", "/items/abc", "/notes/x/history", "/settings/webhooks?x=1"]) {
      const res = await fetch(trove.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      const html = await res.text();
      expect(html).toMatch(/<script type="module" src="\/app\/main-[\w-]+\.js"><\/script>/);
      expect(html).not.toMatch(/(src|href)="https?:/);
    }
  });

  test("the assets are hashed, cached for a year, and gzipped for a client that accepts it", async () => {
    const html = await (await fetch(`${trove.url}/`)).text();
    for (const path of [/src="(\/app\/[^"]+\.js)"/.exec(html)![1]!, /href="(\/app\/[^"]+\.css)"/.exec(html)![1]!]) {
      const plain = await fetch(trove.url + path, { headers: { "accept-encoding": "identity" } });
      expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(plain.headers.get("content-encoding")).toBeNull();
      const body = new Uint8Array(await plain.arrayBuffer());
      // fetch decompresses what it is sent: the gzipped answer reads back as the same bytes.
      const zipped = await fetch(trove.url + path, { headers: { "accept-encoding": "gzip" } });
      expect(zipped.headers.get("content-encoding")).toBe("gzip");
      expect(new Uint8Array(await zipped.arrayBuffer())).toEqual(body);
    }
    const missing = await fetch(`${trove.url}/app/main-nothere.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toBe("not_found");
  });

  test("unknown API paths and other methods keep the JSON 404", async () => {
    for (const [method, path] of [["GET", "/api/nope"], ["GET", "/api"], ["POST", "/"], ["POST", "/items/x"], ["DELETE", "/settings"]] as const) {
      const res = await fetch(trove.url + path, { method });
      expect({ method, path, status: res.status, error: ((await res.json()) as { error: string }).error }).toEqual({ method, path, status: 404, error: "not_found" });
    }
  });
});
