// The SSRF guard end to end. Every connection here goes to loopback servers started
// by the test; names that must not resolve are answered by an injected resolver.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Resolver } from "./guard.ts";
import { guardedFetch } from "./index.ts";
import { fetchWith } from "./request.ts";
import { loopbackOnly, startServer, failure } from "./test-servers.ts";
import type { TestServer } from "./test-servers.ts";

let v4: TestServer;
let v6: TestServer;

beforeAll(() => {
  v4 = startServer(() => new Response("reached v4"));
  v6 = startServer(() => new Response("reached v6"), "::1", v4.port);
});
afterAll(() => {
  v4.stop();
  v6.stop();
});

const hits = () => v4.seen.length + v6.seen.length;


/** A resolver that answers from a table, as DNS would, without asking DNS. */
const table =
  (entries: Record<string, string[]>): Resolver =>
  async (name) => {
    const addresses = entries[name];
    if (!addresses) throw Object.assign(new Error(`${name} not in test table`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

describe("loopback in every spelling is refused without a connection", () => {
  const spellings = ["127.0.0.1", "127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "localhost", "0.0.0.0"];
  test.each(spellings)("http://%s:port/", async (host) => {
    const url = `http://${host}:${v4.port}/`;
    const before = hits();
    const err = await failure(guardedFetch(url, { allowPrivate: false, resolver: loopbackOnly }));
    expect(err.reason).toBe("blocked_address");
    expect(hits()).toBe(before);
  });

  // Control: the same spellings do reach a server once private networks are allowed,
  // so "no request arrived" above is the guard's doing.
  test.each(spellings)("control: http://%s:port/ connects with allowPrivate", async (host) => {
    const before = hits();
    const r = await guardedFetch(`http://${host}:${v4.port}/`, { allowPrivate: true, resolver: loopbackOnly });
    expect(r.status).toBe(200);
    expect(hits()).toBe(before + 1);
  });
});

describe("Bun honours the lookup option (the anti-rebinding mechanism)", () => {
  // If a Bun upgrade stops calling `lookup`, these fail loudly instead of the guard going quiet.
  test("a name is connected to the address our resolver handed back", async () => {
    const before = v4.seen.length;
    const r = await fetchWith(`http://anything.test:${v4.port}/`, { allowPrivate: true }, { resolver: table({ "anything.test": ["127.0.0.1"] }) });
    expect(new TextDecoder().decode(r.bytes)).toBe("reached v4");
    expect(v4.seen.length).toBe(before + 1);
    expect(v4.seen.at(-1)?.headers.host).toBe(`anything.test:${v4.port}`);
  });

  test("a resolver failure stops the request: reason dns", async () => {
    const before = hits();
    const err = await failure(fetchWith(`http://nowhere.test:${v4.port}/`, { allowPrivate: true }, { resolver: table({}) }));
    expect(err.reason).toBe("dns");
    expect(hits()).toBe(before);
  });

  test("a name resolving to loopback is refused", async () => {
    const before = hits();
    const err = await failure(fetchWith(`http://evil.test:${v4.port}/`, { allowPrivate: false }, { resolver: table({ "evil.test": ["127.0.0.1"] }) }));
    expect(err.reason).toBe("blocked_address");
    // The answer never echoes what the name resolved to; the log detail keeps it.
    expect(err.message).toBe("evil.test resolves to an address Trove may not fetch");
    expect(err.message).not.toContain("127.0.0.1");
    expect(err.detail).toContain("evil.test (127.0.0.1)");
    expect(hits()).toBe(before);
  });

  test("one blocked address among allowed ones refuses the host", async () => {
    const before = hits();
    const policy = (ip: string) => (ip === "127.0.0.1" ? null : "test-blocked");
    const resolver = table({ "mixed.test": ["127.0.0.1", "127.0.0.2"] });
    const err = await failure(fetchWith(`http://mixed.test:${v4.port}/`, { allowPrivate: false }, { policy, resolver }));
    expect(err.reason).toBe("blocked_address");
    expect(hits()).toBe(before);
  });

  test("the connected peer is checked again before the request is written", async () => {
    // A policy that allows the first look (in lookup) and refuses the second (on connect)
    // stands in for any path that would reach a socket without passing the lookup guard.
    let looks = 0;
    const policy = () => (++looks === 1 ? null : "second-look");
    const before = hits();
    const err = await failure(fetchWith(`http://peer.test:${v4.port}/`, { allowPrivate: false }, { policy, resolver: table({ "peer.test": ["127.0.0.1"] }) }));
    expect(err.reason).toBe("blocked_address");
    expect(looks).toBe(2);
    // A request that follows on a fresh connection arrives alone: the refused one was never written.
    const control = await fetchWith(`http://peer.test:${v4.port}/after-refusal`, { allowPrivate: true }, { resolver: table({ "peer.test": ["127.0.0.1"] }) });
    expect(control.status).toBe(200);
    expect(hits()).toBe(before + 1);
    expect(v4.seen.at(-1)?.path).toBe("/after-refusal");
  });

  test("a .invalid name is never looked up", async () => {
    const err = await failure(guardedFetch(`http://nothing.invalid:${v4.port}/`, { allowPrivate: true }));
    expect(err.reason).toBe("dns");
  });
});

describe("redirects are re-checked on every hop", () => {
  let second: TestServer;
  let first: TestServer;
  beforeAll(() => {
    second = startServer(() => new Response("secret on 127.0.0.2"), "127.0.0.2");
    first = startServer(() => Response.redirect(second.url("/internal"), 302));
  });
  afterAll(() => {
    first.stop();
    second.stop();
  });

  test("a hop to a refused address fails and the target sees nothing", async () => {
    const policy = (ip: string) => (ip === "127.0.0.1" ? null : "test-blocked");
    const err = await failure(fetchWith(first.url("/start"), { allowPrivate: false }, { policy }));
    expect(err.reason).toBe("blocked_address");
    expect(err.url).toBe(second.url("/internal"));
    expect(first.seen.length).toBe(1);
    expect(second.seen.length).toBe(0);
  });

  test("a hop to a name resolving to a refused address fails too", async () => {
    const redirector = startServer(() => Response.redirect(`http://inside.test:${second.port}/`, 302));
    try {
      const policy = (ip: string) => (ip === "127.0.0.1" ? null : "test-blocked");
      const resolver = table({ "inside.test": ["127.0.0.2"] });
      const err = await failure(fetchWith(redirector.url("/"), { allowPrivate: false }, { policy, resolver }));
      expect(err.reason).toBe("blocked_address");
      expect(second.seen.length).toBe(0);
    } finally {
      redirector.stop();
    }
  });

  test("control: with both addresses allowed the chain completes", async () => {
    const r = await fetchWith(first.url("/start"), { allowPrivate: true });
    expect(new TextDecoder().decode(r.bytes)).toBe("secret on 127.0.0.2");
    expect(r.redirects).toEqual([first.url("/start")]);
    second.seen.length = 0;
  });
});

describe("only http and https", () => {
  test.each(["javascript:alert(1)", "file:///etc/passwd", "data:text/html,<p>hi</p>", `ftp://127.0.0.1:PORT/`, "gopher://127.0.0.1/"])(
    "%s -> unsupported_scheme, no connection",
    async (raw) => {
      const before = hits();
      const err = await failure(guardedFetch(raw.replace("PORT", String(v4.port)), { allowPrivate: true }));
      expect(err.reason).toBe("unsupported_scheme");
      expect(hits()).toBe(before);
    },
  );

  test("a redirect to another scheme is refused", async () => {
    const s = startServer(() => Response.redirect("file:///etc/passwd", 302));
    try {
      const err = await failure(guardedFetch(s.url("/"), { allowPrivate: true }));
      expect(err.reason).toBe("unsupported_scheme");
    } finally {
      s.stop();
    }
  });

  test.each(["not a url", "http://", "http://256.1.1.1/", "//127.0.0.1/"])("%p -> invalid_url", async (raw) => {
    const err = await failure(guardedFetch(raw, { allowPrivate: true }));
    expect(err.reason).toBe("invalid_url");
  });
});

/** A throwaway self-signed certificate for trove.test, made with openssl; or why there is none. */
function selfSignedCert(): { key: string; cert: string } | { skip: string } {
  if (!Bun.which("openssl")) return { skip: "openssl is not installed" };
  const dir = mkdtempSync(join(tmpdir(), "webfetch-tls-"));
  try {
    const gen = Bun.spawnSync(
      ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
        "-subj", "/CN=trove.test", "-addext", "subjectAltName=DNS:trove.test", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")],
      { stderr: "pipe", stdout: "ignore" },
    );
    if (gen.exitCode !== 0) return { skip: `openssl could not make a certificate (${gen.stderr.toString().trim().split("\n")[0]})` };
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("https", () => {
  const tls = selfSignedCert();
  // A registered skip that says why, never a test that passes without running.
  const skipped = "skip" in tls ? ` (skipped: ${tls.skip})` : "";
  let tlsServer: TestServer;
  let cert = "";
  beforeAll(() => {
    if ("skip" in tls) return;
    cert = tls.cert;
    tlsServer = startServer((req) => new Response(`tls ok ${req.headers.get("host")}`), "127.0.0.1", 0, tls);
  });
  afterAll(() => tlsServer?.stop());

  test.skipIf(skipped !== "")(`the checked address is used while SNI and Host keep the name${skipped}`, async () => {
    const url = `https://trove.test:${tlsServer.port}/`;
    const resolver = table({ "trove.test": ["127.0.0.1"] });
    const r = await fetchWith(url, { allowPrivate: true }, { resolver, ca: cert });
    expect(new TextDecoder().decode(r.bytes)).toBe(`tls ok trove.test:${tlsServer.port}`);
    // and the guard applies to https the same way
    const err = await failure(fetchWith(url, { allowPrivate: false }, { resolver, ca: cert }));
    expect(err.reason).toBe("blocked_address");
  });

  test.skipIf(skipped !== "")(`a certificate for another name fails to connect${skipped}`, async () => {
    const resolver = table({ "other.test": ["127.0.0.1"] });
    const err = await failure(fetchWith(`https://other.test:${tlsServer.port}/`, { allowPrivate: true }, { resolver, ca: cert }));
    expect(err.reason).toBe("connect");
  });
});
