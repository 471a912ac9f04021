// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), local feeds on 127.0.0.1, the
// SMTP listener with nodemailer as the sender, and the MCP server at /mcp driven by the SDK's client. What a failed
// run or mail leaves to read (initialRun.error, lastError, error events, the list_sources tool) says what kind of
// failure it was, and names no URL, host or address: any reading key sees it, and a private feed's URL is a secret.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { addClientKey, bobKey, eventually, freePort, startTrove, type TestTrove } from "@trove/testing";
import nodemailer from "nodemailer";
import { feedServer } from "./feeds.ts";

let trove: TestTrove;
let feeds: ReturnType<typeof feedServer>;
let smtpPort: number;
let readOnlyKey: string;

beforeAll(async () => {
  feeds = feedServer();
  smtpPort = await freePort();
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000", TROVE_SMTP_PORT: String(smtpPort), TROVE_INBOX_DOMAIN: "in.trove.test" });
  readOnlyKey = await addClientKey(trove, { access: "read_only" });
});
afterAll(async () => {
  await trove?.stop();
  feeds?.stop();
});

async function call(path: string, init: { json?: unknown; key?: string } = {}) {
  const res = await trove.api(path, { method: init.json === undefined ? "GET" : "POST", json: init.json, key: init.key });
  return { status: res.status, body: await res.json() };
}

/**
 * The error texts a reading key is shown (lastError, error events) and those an agent reads through list_sources.
 * (The manifest's target is the feed's address with its secrets masked, shown by design, so it is left out.)
 */
async function errorTextsShown(): Promise<string[]> {
  const { sources } = (await call("/api/sources?limit=1000", { key: readOnlyKey })).body;
  const texts: string[] = sources.map((s: any) => s.lastError).filter((e: unknown) => e !== null);
  for (const s of sources) {
    const { events } = (await call(`/api/sources/${s.id}/events?limit=200`, { key: readOnlyKey })).body;
    texts.push(...events.filter((e: any) => e.type === "error").map((e: any) => e.message));
  }
  const client = new Client({ name: "trove-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${trove.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${readOnlyKey}` } } }));
  try {
    const tool = (await client.callTool({ name: "list_sources", arguments: { limit: 100 } })) as { isError?: boolean; content: { text: string }[] };
    expect(tool.isError).not.toBe(true);
    const listed = JSON.parse(tool.content[0]!.text).sources as { lastError: string | null }[];
    texts.push(...listed.map((s) => s.lastError).filter((e): e is string => e !== null));
  } finally {
    await client.close();
  }
  return texts;
}

describe("what a failed run shows", () => {
  test("refused connections, unknown hosts, refused redirects, HTTP errors and non-feeds: the kind of failure, no address", async () => {
    const secretPath = "private-path-7d1f";
    const secretQuery = "s3cret-query-token";
    const closed = await freePort();
    const loop = feeds.route(`/${secretPath}/loop.xml`, () => new Response(null, { status: 302, headers: { location: `${feeds.base}/${secretPath}/loop.xml?token=${secretQuery}` } }));
    const cases: { feedUrl: string; says: string }[] = [
      { feedUrl: `http://127.0.0.1:${closed}/${secretPath}/refused.xml?token=${secretQuery}`, says: "fetch failed (connect)" },
      { feedUrl: `http://${secretPath}.feeds.invalid/feed.xml?token=${secretQuery}`, says: "fetch failed (dns)" },
      {
        feedUrl: feeds.route(`/${secretPath}/redirect.xml`, () => new Response(null, { status: 302, headers: { location: `http://169.254.169.254/${secretPath}?token=${secretQuery}` } })),
        says: "url_not_allowed",
      },
      { feedUrl: `${loop}?token=${secretQuery}`, says: "fetch failed (too_many_redirects)" },
      { feedUrl: `${feeds.route(`/${secretPath}/500.xml`, () => new Response("down", { status: 500 }))}?token=${secretQuery}`, says: "HTTP 500" },
      {
        // A document that quotes its own address where a parser might show it.
        feedUrl: `${feeds.route(`/${secretPath}/page.xml`, (req) => new Response(`<html><body><a href="${req.url}">${req.url}</a></body></html>`, { headers: { "content-type": "text/html" } }))}?token=${secretQuery}`,
        says: "not a readable RSS, Atom, RDF or JSON feed",
      },
    ];
    for (const { feedUrl, says } of cases) {
      const r = await call("/api/sources", { json: { type: "rss", feedUrl } });
      expect({ feedUrl, status: r.status }).toEqual({ feedUrl, status: 200 });
      expect({ feedUrl, error: r.body.initialRun.error }).toEqual({ feedUrl, error: expect.stringContaining(says) });
      expect(r.body.source.lastError).toBe(r.body.initialRun.error);
      for (const secret of [secretPath, secretQuery, "127.0.0.1", "169.254", ".invalid", String(closed), String(new URL(feeds.base).port)]) {
        expect({ feedUrl, secret, shown: r.body.initialRun.error.includes(secret) }).toEqual({ feedUrl, secret, shown: false });
      }
      // The owner still has the address, in the views that are for it.
      expect((await call(`/api/sources/${r.body.source.id}?include=sensitive`)).body.source.target).toContain(secretPath);
    }

    const texts = await errorTextsShown();
    // Each failure three times: lastError, its error event, and the tool's answer.
    expect(texts).toHaveLength(3 * cases.length);
    for (const secret of [secretPath, secretQuery, "127.0.0.1", "169.254", ".invalid", String(closed), String(new URL(feeds.base).port)]) {
      expect({ secret, shownIn: texts.filter((t) => t.includes(secret)) }).toEqual({ secret, shownIn: [] });
    }
    expect(texts.filter((t) => t.startsWith("fetch failed (connect)"))).toHaveLength(3);
  });
});

describe("what a failed mail shows", () => {
  test("a mail the plan has no room for: the inbox says a message was not added and why, not who sent it", async () => {
    const inbox = (await call("/api/sources", { key: bobKey, json: { type: "email_inbox", name: "Bob's letters" } })).body.source;
    const transport = nodemailer.createTransport({ host: "127.0.0.1", port: smtpPort, secure: false, ignoreTLS: true, pool: false });
    // Bob's plan holds 3 items: the fourth mail is refused by the items service.
    for (let i = 0; i < 4; i++) {
      await transport.sendMail({ from: "Private Sender <private.sender@letters.example>", to: inbox.inboxAddress, subject: `Letter ${i}`, text: `Letter number ${i}.` });
    }
    // Each mail answered 250 becomes an item or a listed failure once it has been read.
    await eventually(async () => (await call(`/api/sources/${inbox.id}/messages`, { key: bobKey })).body.messages.length === 4, 30_000);
    const source = (await call(`/api/sources/${inbox.id}`, { key: bobKey })).body.source;
    expect(source.lastError).toStartWith("a message was not added: quota reached");
    expect(source.lastError).not.toContain("letters.example");
    const failed = (await call(`/api/sources/${inbox.id}/messages`, { key: bobKey })).body.messages.find((m: any) => m.status === "failed");
    // The mail log is where the sender is shown, with the same reason.
    expect(failed).toMatchObject({ from: "private.sender@letters.example", error: expect.stringContaining("quota reached") });
  });
});
