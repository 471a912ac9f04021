// guardedFetch and fetchPage against a loopback server, with private networks allowed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import zlib from "node:zlib";
import iconv from "iconv-lite";
import { DEFAULT_USER_AGENT, fetchPage, guardedFetch } from "./index.ts";
import type { FetchOptions } from "./index.ts";
import { fetchWith } from "./request.ts";
import { loopbackOnly, startServer, trickle, failure } from "./test-servers.ts";
import type { TestServer } from "./test-servers.ts";

const opts: FetchOptions = { allowPrivate: true, resolver: loopbackOnly };
const html = (body: string, headers: Record<string, string> = {}) =>
  new Response(body, { headers: { "content-type": "text/html; charset=utf-8", ...headers } });
const bytesOf = (s: string, charset: string) => new Uint8Array(iconv.encode(s, charset));
const text = (b: Uint8Array) => new TextDecoder().decode(b);

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const PDF = new TextEncoder().encode("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << >> endobj\n%%EOF\n");
const PAGE = "<!doctype html><html><head><title>Hello Trove</title></head><body><p>Grüße</p></body></html>";
const CAFE = "<p>Café “quoted” — naïve</p>";

let huge = { produced: 0, cancelled: Promise.withResolvers<void>() };
/** /slow and /stall hold their answer until the test ends: a deadline can only pass by firing. */
const answerLater = Promise.withResolvers<void>();
/** Resolves when a request for /slow has reached the server. */
let slowReached = Promise.withResolvers<void>();
let s: TestServer;

beforeAll(() => {
  s = startServer(async (req) => {
    const { pathname, searchParams } = new URL(req.url);
    if (pathname === "/page") return html(PAGE, { "x-served-by": "test" });
    if (pathname === "/missing") return new Response("<h1>not here</h1>", { status: 404, headers: { "content-type": "text/html" } });
    if (pathname === "/error") return new Response("boom", { status: 503 });
    if (pathname.startsWith("/chain/")) {
      // /chain/N redirects to /chain/N-1; /chain/0 is the page.
      const n = Number(pathname.slice(7));
      if (n === 0) return html("end of chain");
      return new Response(null, { status: [301, 302, 303, 307, 308][n % 5]!, headers: { location: `/chain/${n - 1}` } });
    }
    if (pathname === "/dir/relative") return new Response(null, { status: 302, headers: { location: "../landing/here?from=relative" } });
    if (pathname === "/landing/here") return html(`landed ${searchParams.get("from")}`);
    if (pathname === "/see-other") return new Response(null, { status: 303, headers: { location: "/echo" } });
    if (pathname === "/temporary") return new Response(null, { status: 307, headers: { location: "/echo" } });
    if (pathname === "/echo") {
      const body = await req.text();
      return Response.json({ method: req.method, body, auth: req.headers.get("authorization"), ct: req.headers.get("content-type") });
    }
    if (pathname === "/to-localhost") return new Response(null, { status: 302, headers: { location: `http://localhost:${s.port}/echo` } });
    if (pathname === "/no-location") return new Response("moved, somewhere", { status: 302 });
    if (pathname === "/slow") {
      slowReached.resolve();
      await answerLater.promise;
      return html("too late");
    }
    if (pathname === "/stall") return new Response(trickle([new TextEncoder().encode("<html><body>start of a page")], { stall: true }), { headers: { "content-type": "text/html" } });
    if (pathname === "/drip") {
      // One byte every 50 ms and never an end: alive the whole time, finished never.
      const stream = new ReadableStream<Uint8Array>({
        async pull(c) {
          await Bun.sleep(50);
          c.enqueue(new TextEncoder().encode("x"));
        },
      });
      return new Response(stream, { headers: { "content-type": "text/plain" } });
    }
    if (pathname === "/pdf") return new Response(PDF, { headers: { "content-type": "application/pdf" } });
    if (pathname === "/png") return new Response(PNG, { headers: { "content-type": "IMAGE/PNG" } });
    if (pathname === "/untyped") return new Response(PAGE);
    if (pathname === "/huge") {
      huge = { produced: 0, cancelled: Promise.withResolvers<void>() };
      const chunk = new Uint8Array(64 * 1024).fill(0x61);
      const stream = new ReadableStream<Uint8Array>({
        pull(c) {
          if (huge.produced >= 1024 * 1024 * 1024) return c.close(); // 1 GiB if nobody stops reading
          huge.produced += chunk.length;
          c.enqueue(chunk);
        },
        cancel() {
          huge.cancelled.resolve();
        },
      });
      return new Response(stream, { headers: { "content-type": "text/html" } });
    }
    if (pathname === "/exact") return new Response(new Uint8Array(1000).fill(0x62), { headers: { "content-type": "text/plain" } });
    if (pathname === "/cp1252-header") return new Response(bytesOf(CAFE, "windows-1252"), { headers: { "content-type": "text/html; charset=windows-1252" } });
    if (pathname === "/cp1252-meta") {
      return new Response(bytesOf(`<html><head><meta charset="windows-1252"></head><body>${CAFE}</body></html>`, "windows-1252"), { headers: { "content-type": "text/html" } });
    }
    if (pathname === "/sjis") return new Response(bytesOf("<p>日本語のページです</p>", "shift_jis"), { headers: { "content-type": "text/html; charset=Shift_JIS" } });
    if (pathname === "/latin1-undeclared") return new Response(bytesOf("<p>Déjà vu, façade, Ørsted</p>", "latin1"), { headers: { "content-type": "text/html" } });
    if (pathname === "/gzip") return new Response(zlib.gzipSync(PAGE), { headers: { "content-type": "text/html; charset=utf-8", "content-encoding": "gzip" } });
    if (pathname === "/deflate") return new Response(zlib.deflateSync(PAGE), { headers: { "content-type": "text/html; charset=utf-8", "content-encoding": "deflate" } });
    if (pathname === "/deflate-raw") return new Response(zlib.deflateRawSync(PAGE), { headers: { "content-type": "text/html; charset=utf-8", "content-encoding": "deflate" } });
    if (pathname === "/br") return new Response(zlib.brotliCompressSync(PAGE), { headers: { "content-type": "text/html; charset=utf-8", "content-encoding": "br" } });
    if (pathname === "/gzip-bomb") {
      // 64 MiB of zeros compresses to ~64 KiB: the cap must apply to what it inflates to.
      return new Response(zlib.gzipSync(new Uint8Array(64 * 1024 * 1024)), { headers: { "content-type": "text/html", "content-encoding": "gzip" } });
    }
    return new Response("no route", { status: 500 });
  });
});
afterAll(() => {
  answerLater.resolve();
  s.stop();
});


describe("ordinary responses", () => {
  test("a normal page", async () => {
    const r = await fetchPage(s.url("/page"), opts);
    expect(r.status).toBe(200);
    expect(r.url).toBe(s.url("/page"));
    expect(r.contentType).toBe("text/html");
    expect(r.charset).toBe("utf-8");
    expect(r.text).toBe(PAGE);
    expect(r.headers["x-served-by"]).toBe("test");
    expect(r.truncated).toBe(false);
    expect(r.redirects).toEqual([]);
    const seen = s.seen.at(-1)!;
    expect(seen.headers["user-agent"]).toBe(DEFAULT_USER_AGENT);
    expect(seen.headers.accept).toStartWith("text/html");
    expect(seen.headers["accept-encoding"]).toBe("gzip, deflate, br");
  });

  test("the default User-Agent looks like a browser and names Trove", () => {
    expect(DEFAULT_USER_AGENT).toStartWith("Mozilla/5.0 ");
    expect(DEFAULT_USER_AGENT).toContain("Chrome/");
    expect(DEFAULT_USER_AGENT).toContain("Trove/");
  });

  test("userAgent, accept and headers options are sent", async () => {
    await guardedFetch(s.url("/page"), { ...opts, userAgent: "TroveBot/1", accept: "application/json", headers: { "X-Extra": "yes" } });
    const seen = s.seen.at(-1)!;
    expect(seen.headers["user-agent"]).toBe("TroveBot/1");
    expect(seen.headers.accept).toBe("application/json");
    expect(seen.headers["x-extra"]).toBe("yes");
  });

  test("404: guardedFetch returns it, fetchPage throws http_status", async () => {
    const r = await guardedFetch(s.url("/missing"), opts);
    expect(r.status).toBe(404);
    expect(text(r.bytes)).toBe("<h1>not here</h1>");
    const err = await failure(fetchPage(s.url("/missing"), opts));
    expect(err.reason).toBe("http_status");
    expect(err.status).toBe(404);
    expect(err.url).toBe(s.url("/missing"));
  });

  test("5xx is returned by guardedFetch, thrown by fetchPage", async () => {
    expect((await guardedFetch(s.url("/error"), opts)).status).toBe(503);
    expect((await failure(fetchPage(s.url("/error"), opts))).status).toBe(503);
  });

  test("a non-HTML file reports its type and bytes (fetchPage leaves text empty)", async () => {
    const pdf = await fetchPage(s.url("/pdf"), opts);
    expect(pdf.contentType).toBe("application/pdf");
    expect(pdf.bytes).toEqual(PDF);
    expect(pdf.text).toBe("");
    const png = await guardedFetch(s.url("/png"), opts);
    expect(png.contentType).toBe("image/png");
    expect(png.bytes).toEqual(PNG);
  });

  test("no Content-Type: contentType is empty and the text still decodes", async () => {
    const r = await fetchPage(s.url("/untyped"), opts);
    expect(r.text).toBe(PAGE);
  });

  test("POST with a body (for webhooks)", async () => {
    const r = await guardedFetch(s.url("/echo"), { ...opts, method: "post", body: "{\"a\":1}", headers: { "content-type": "application/json" } });
    expect(JSON.parse(text(r.bytes))).toEqual({ method: "POST", body: "{\"a\":1}", auth: null, ct: "application/json" });
  });

  test("HEAD has no body", async () => {
    const r = await guardedFetch(s.url("/page"), { ...opts, method: "HEAD" });
    expect(r.status).toBe(200);
    expect(r.bytes.length).toBe(0);
  });

  test("credentials in the URL are stripped: not sent, not returned", async () => {
    const withCreds = s.url("/echo").replace("http://", "http://alice:s3cret@");
    const r = await guardedFetch(withCreds, opts);
    expect(JSON.parse(text(r.bytes)).auth).toBeNull();
    expect(s.seen.at(-1)!.headers.authorization).toBeUndefined();
    expect(r.url).toBe(s.url("/echo"));
  });

  test("nothing listening -> connect", async () => {
    const gone = startServer(() => new Response(""));
    const url = gone.url("/");
    gone.stop();
    expect((await failure(guardedFetch(url, opts))).reason).toBe("connect");
  });
});

/** A raw TCP server on 127.0.0.1 that answers any request with `reply` and hangs up. */
async function rawServer(reply: string): Promise<{ url: string; close: () => void }> {
  const srv = net.createServer((sock) => sock.once("data", () => sock.end(reply)));
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}/`, close: () => srv.close() };
}

describe("broken responses", () => {
  test("the connection closes before Content-Length is reached -> network", async () => {
    const raw = await rawServer("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 100\r\n\r\nonly ten!!");
    try {
      expect((await failure(guardedFetch(raw.url, opts))).reason).toBe("network");
    } finally {
      raw.close();
    }
  });

  test("a body that is not the gzip it claims -> network", async () => {
    const raw = await rawServer("HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\nconnection: close\r\n\r\nthis is not gzip");
    try {
      expect((await failure(guardedFetch(raw.url, opts))).reason).toBe("network");
    } finally {
      raw.close();
    }
  });
});

describe("redirects", () => {
  test("a chain of 5 is followed", async () => {
    const r = await fetchPage(s.url("/chain/5"), opts);
    expect(r.text).toBe("end of chain");
    expect(r.url).toBe(s.url("/chain/0"));
    expect(r.redirects).toEqual([5, 4, 3, 2, 1].map((n) => s.url(`/chain/${n}`)));
  });

  test("a chain of 6 fails: too_many_redirects", async () => {
    const before = s.seen.length;
    const err = await failure(guardedFetch(s.url("/chain/6"), opts));
    expect(err.reason).toBe("too_many_redirects");
    expect(s.seen.length - before).toBe(6); // the 7th URL is never requested
  });

  test("maxRedirects is honoured", async () => {
    expect((await failure(guardedFetch(s.url("/chain/1"), { ...opts, maxRedirects: 0 }))).reason).toBe("too_many_redirects");
    expect((await guardedFetch(s.url("/chain/7"), { ...opts, maxRedirects: 7 })).status).toBe(200);
  });

  test("a relative Location resolves against the current URL", async () => {
    const r = await fetchPage(s.url("/dir/relative"), opts);
    expect(r.url).toBe(s.url("/landing/here?from=relative"));
    expect(r.text).toBe("landed relative");
  });

  test("303 turns a POST into a bodiless GET", async () => {
    const r = await guardedFetch(s.url("/see-other"), { ...opts, method: "POST", body: "payload", headers: { "content-type": "text/plain" } });
    expect(JSON.parse(text(r.bytes))).toEqual({ method: "GET", body: "", auth: null, ct: null });
  });

  test("307 keeps the method and body", async () => {
    const r = await guardedFetch(s.url("/temporary"), { ...opts, method: "POST", body: "payload" });
    expect(JSON.parse(text(r.bytes))).toMatchObject({ method: "POST", body: "payload" });
  });

  test("Authorization is not carried to another origin", async () => {
    const same = await guardedFetch(s.url("/echo"), { ...opts, headers: { authorization: "Bearer t" } });
    expect(JSON.parse(text(same.bytes)).auth).toBe("Bearer t");
    const cross = await guardedFetch(s.url("/to-localhost"), { ...opts, headers: { authorization: "Bearer t" } });
    expect(cross.url).toBe(`http://localhost:${s.port}/echo`);
    expect(JSON.parse(text(cross.bytes)).auth).toBeNull();
  });

  test("a 3xx without Location is the final response", async () => {
    const r = await guardedFetch(s.url("/no-location"), opts);
    expect(r.status).toBe(302);
    expect(text(r.bytes)).toBe("moved, somewhere");
  });
});

// The servers below never answer (or never finish) while the test runs, so each outcome can only come from the
// deadline or signal under test; the test's own time limit is what would catch a deadline that never fires.
describe("deadlines", () => {
  test("a server that does not answer: timeout", async () => {
    const err = await failure(guardedFetch(s.url("/slow"), { ...opts, timeoutMs: 200 }));
    expect(err.reason).toBe("timeout");
  });

  test("a server that stalls mid-body: timeout", async () => {
    const err = await failure(fetchPage(s.url("/stall"), { ...opts, timeoutMs: 300 }));
    expect(err.reason).toBe("timeout");
  });

  test("the deadline covers a body that keeps trickling", async () => {
    const err = await failure(guardedFetch(s.url("/drip"), { ...opts, timeoutMs: 400 }));
    expect(err.reason).toBe("timeout");
  });

  test("connect timeout (DNS + connect)", async () => {
    const asked: string[] = [];
    const silentDns = (name: string) => {
      asked.push(name);
      return new Promise<never>(() => {}); // never answers
    };
    const before = s.seen.length;
    const err = await failure(fetchWith(`http://slow-dns.test:${s.port}/page`, { ...opts, connectTimeoutMs: 100 }, { resolver: silentDns }));
    expect(err.reason).toBe("timeout");
    expect(err.message).toContain("no connection");
    expect(asked).toEqual(["slow-dns.test"]);
    expect(s.seen.length).toBe(before);
  });

  test("the caller's signal aborts", async () => {
    slowReached = Promise.withResolvers<void>();
    const ctrl = new AbortController();
    // Aborted once the request is with the server, which will not answer.
    void slowReached.promise.then(() => ctrl.abort());
    const err = await failure(guardedFetch(s.url("/slow"), { ...opts, signal: ctrl.signal }));
    expect(err.reason).toBe("network");
    expect(err.message).toContain("aborted");
    const timeoutErr = await failure(guardedFetch(s.url("/slow"), { ...opts, signal: AbortSignal.timeout(100) }));
    expect(timeoutErr.reason).toBe("timeout");
  });
});

describe("size cap", () => {
  test("a huge page is cut at maxBytes without reading the rest", async () => {
    const cap = 1024 * 1024;
    const r = await guardedFetch(s.url("/huge"), { ...opts, maxBytes: cap });
    expect(r.truncated).toBe(true);
    expect(r.bytes.length).toBe(cap);
    expect(r.bytes[cap - 1]).toBe(0x61);
    // The server was willing to send 1 GiB; hanging up stopped it after a few socket buffers.
    await huge.cancelled.promise;
    expect(huge.produced).toBeLessThan(32 * 1024 * 1024);
  });

  test("the default cap is 5 MiB", async () => {
    const r = await guardedFetch(s.url("/huge"), opts);
    expect(r.truncated).toBe(true);
    expect(r.bytes.length).toBe(5 * 1024 * 1024);
  });

  test("a body of exactly maxBytes is not truncated", async () => {
    const r = await guardedFetch(s.url("/exact"), { ...opts, maxBytes: 1000 });
    expect(r.truncated).toBe(false);
    expect(r.bytes.length).toBe(1000);
  });

  test("the cap applies to the inflated size (gzip bomb)", async () => {
    const r = await guardedFetch(s.url("/gzip-bomb"), { ...opts, maxBytes: 100_000 });
    expect(r.truncated).toBe(true);
    expect(r.bytes.length).toBe(100_000);
  });
});

describe("content encoding", () => {
  test.each(["/gzip", "/deflate", "/deflate-raw", "/br"])("%s is decoded", async (path) => {
    const r = await fetchPage(s.url(path), opts);
    expect(r.text).toBe(PAGE);
  });
});

describe("charsets", () => {
  test("windows-1252 declared in the header", async () => {
    const r = await fetchPage(s.url("/cp1252-header"), opts);
    expect(r.charset).toBe("windows-1252");
    expect(r.text).toBe(CAFE);
  });

  test("windows-1252 declared only by <meta charset>", async () => {
    const r = await fetchPage(s.url("/cp1252-meta"), opts);
    expect(r.charset).toBe("windows-1252");
    expect(r.text).toContain(CAFE);
  });

  test("Shift_JIS", async () => {
    const r = await fetchPage(s.url("/sjis"), opts);
    expect(r.charset).toBe("shift_jis");
    expect(r.text).toBe("<p>日本語のページです</p>");
  });

  test("undeclared latin-1 is read as windows-1252", async () => {
    const r = await fetchPage(s.url("/latin1-undeclared"), opts);
    expect(r.charset).toBe("windows-1252");
    expect(r.text).toBe("<p>Déjà vu, façade, Ørsted</p>");
  });

  test("guardedFetch reports only the header's charset", async () => {
    expect((await guardedFetch(s.url("/cp1252-meta"), opts)).charset).toBeNull();
    expect((await guardedFetch(s.url("/sjis"), opts)).charset).toBe("shift_jis");
  });
});
