// No mail, feed or page stalls the process. Each test hands Trove one hostile input of the shapes that used to
// hold the event loop (patterns that backtrack, scans that restart at every "<"), asks /api/health while that
// input is in Trove's hands (mail: while it is answered, and while the message kept is read), then checks the
// input's bounded outcome. Real: every service in this process (PGlite + in-process bus, or PostgreSQL + NATS),
// the SMTP listener on 127.0.0.1 spoken to line by line, feeds and pages served from 127.0.0.1. Nothing is timed; the inputs are sized so that reading them on the event loop, as before,
// held it for minutes, far past each test's time budget.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { eventually, freePort, heldResponse, startTrove, type TestTrove } from "@trove/testing";
import { feedServer, rss2, type FixtureEntry } from "./feeds.ts";

/**
 * Each test's budget (not a measurement): its work is a few linear passes over a few MB in a worker, where reading
 * the same input on the event loop held it for minutes; on a machine busy with other work the passes alone have
 * taken over 20 s. The 1 MB page, whose stall was about half a minute, keeps a budget below that.
 */
const budgetMs = 90_000;
const pageBudgetMs = 20_000;

let trove: TestTrove;
let port: number;
let feeds: ReturnType<typeof feedServer>;

beforeAll(async () => {
  port = await freePort();
  feeds = feedServer();
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000", TROVE_SMTP_PORT: String(port), TROVE_INBOX_DOMAIN: "in.trove.test" });
});
afterAll(async () => {
  await trove?.stop();
  feeds?.stop();
});

async function call(path: string, init: { json?: unknown } = {}) {
  const res = await trove.api(path, { method: init.json === undefined ? "GET" : "POST", json: init.json });
  return { status: res.status, body: await res.json() };
}

async function health(): Promise<void> {
  const res = await trove.api("/api/health", { key: null });
  expect(res.status).toBe(200);
  expect((await res.json()).status).toBe("ok");
}

async function inbox(json: Record<string, unknown>) {
  const r = await call("/api/sources", { json: { type: "email_inbox", ...json } });
  expect(r.status).toBe(200);
  return r.body.source as { id: string; name: string; inboxAddress: string };
}

const itemsOf = async (name: string) =>
  (await call(`/api/items?source=${encodeURIComponent(name)}&limit=100`)).body.items as { id: string; title: string; url: string; tags: string[] }[];

/**
 * An SMTP client that sends one message a line at a time, so the test knows the moment the whole message has
 * been handed over (the final "." written) and can ask other things before reading the listener's reply.
 */
async function smtpClient(): Promise<{ command(line: string): Promise<string>; data(message: string): Promise<void>; reply(): Promise<string>; close(): void }> {
  const socket: Socket = connect({ host: "127.0.0.1", port });
  socket.setEncoding("utf8");
  const replies: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  let buffer = "";
  const flush = () => {
    if (waiting && replies.length > 0) {
      const w = waiting;
      waiting = undefined;
      w(replies.shift()!);
    }
  };
  socket.on("data", (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\r\n"); end >= 0; end = buffer.indexOf("\r\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      // "250-..." lines continue a reply; "250 ..." ends it.
      if (line[3] !== "-") replies.push(line);
    }
    flush();
  });
  const reply = () =>
    new Promise<string>((resolve) => {
      waiting = resolve;
      flush();
    });
  const write = (text: string) => new Promise<void>((resolve, reject) => socket.write(text, (err) => (err ? reject(err) : resolve())));
  expect(await reply()).toStartWith("220");
  return {
    command: async (line) => {
      await write(`${line}\r\n`);
      return reply();
    },
    data: (message) => write(`${message}\r\n.\r\n`),
    reply,
    close: () => socket.end(),
  };
}

/** A MIME message whose one body part is `body` as `type`, base64-encoded (76-character lines). */
function message(to: string, subject: string, type: "text/plain" | "text/html", body: string, messageId: string): string {
  const encoded = Buffer.from(body, "utf8").toString("base64").replace(/.{76}/g, "$&\r\n");
  return [
    "From: Provider <setup@provider.example>",
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: <${messageId}>`,
    "MIME-Version: 1.0",
    `Content-Type: ${type}; charset=utf-8`,
    "Content-Transfer-Encoding: base64",
    "",
    encoded,
  ].join("\r\n");
}

const listed = async (sourceId: string) => (await call(`/api/sources/${sourceId}/messages`)).body.messages as unknown[];

/**
 * Sends `mail` to `to`, an inbox of the source `sourceId`; /api/health is asked once the whole message is handed
 * over and, once it is answered 250 (kept), again and again while it is read and added, until the inbox lists it.
 * Answers the final reply.
 */
async function sendAskingHealth(to: string, mail: string, sourceId: string): Promise<string> {
  const before = (await listed(sourceId)).length;
  const smtp = await smtpClient();
  let reply: string;
  try {
    expect(await smtp.command("EHLO sender.example")).toStartWith("250");
    expect(await smtp.command("MAIL FROM:<setup@provider.example>")).toStartWith("250");
    expect(await smtp.command(`RCPT TO:<${to}>`)).toStartWith("250");
    expect(await smtp.command("DATA")).toStartWith("354");
    await smtp.data(mail);
    await health();
    reply = await smtp.reply();
  } finally {
    smtp.close();
  }
  if (reply.startsWith("250")) {
    await eventually(async () => {
      await health();
      return (await listed(sourceId)).length > before;
      // Bounded by each test's own budget; this only must not end sooner.
    }, budgetMs * 2);
  }
  return reply;
}

describe("hostile mail", () => {
  test(
    "'verification code' and 450,000 spaces: health answers while it is read; the mail is added, with no code in it",
    async () => {
      const src = await inbox({ name: "Setup mail" });
      // The pattern looked for a code after the words: every split of the spaces was tried, and none ends in one.
      const hostile = `Your verification code${" ".repeat(450_000)}.`;
      const reply = await sendAskingHealth(src.inboxAddress, message(src.inboxAddress, "Almost there", "text/plain", hostile, "code-spaces@provider.example"), src.id);
      expect(reply).toStartWith("250");
      expect((await call(`/api/sources/${src.id}/messages`)).body.messages).toMatchObject([{ subject: "Almost there", status: "added", error: null }]);
      expect((await call(`/api/sources/${src.id}/confirmation`)).body).toEqual({ confirmation: null });
      // A real code is still found.
      const real = "Your verification code is\n\n   482913.\n\nIt expires in an hour.";
      expect(await sendAskingHealth(src.inboxAddress, message(src.inboxAddress, "Confirm your address", "text/plain", real, "code-real@provider.example"), src.id)).toStartWith("250");
      expect((await call(`/api/sources/${src.id}/confirmation`)).body.confirmation).toMatchObject({ code: "482913", link: null, subject: "Confirm your address" });
      expect((await itemsOf("Setup mail")).map((i) => i.title)).toEqual(["Confirm your address", "Almost there"]);
    },
    budgetMs,
  );

  test(
    "1,500,000 unclosed anchors: health answers while it is read; the mail is added under Trove's own address",
    async () => {
      const src = await inbox({ name: "Anchor flood" });
      const html = `<p>Hello</p>${"<a ".repeat(1_500_000)}>`;
      const reply = await sendAskingHealth(src.inboxAddress, message(src.inboxAddress, "Many anchors", "text/html", html, "anchor-flood@provider.example"), src.id);
      expect(reply).toStartWith("250");
      const items = await itemsOf("Anchor flood");
      expect(items.map((i) => i.title)).toEqual(["Many anchors"]);
      // No anchor names a web version: the item gets the inbox's own stable address.
      expect(items[0]!.url).toStartWith(`https://in.trove.test/sources/${src.id}/messages/`);
      expect((await call(`/api/sources/${src.id}/messages`)).body.messages).toMatchObject([{ status: "added" }]);
    },
    budgetMs,
  );

  test(
    "1,000,000 '<' under a content smart tag rule: health answers while it is read; the rule still tags what matches",
    async () => {
      const src = await inbox({ name: "Tagged mail", smartTagRules: [{ field: "content", contains: "café crème", tags: ["coffee"] }] });
      const flood = `<p>Nothing to see</p>${"<".repeat(1_000_000)}`;
      const reply = await sendAskingHealth(src.inboxAddress, message(src.inboxAddress, "Angle brackets", "text/html", flood, "lt-flood@provider.example"), src.id);
      expect(reply).toStartWith("250");
      const match = "<p>Our new <b>Cafe</b>\n  Creme blend</p>";
      expect(await sendAskingHealth(src.inboxAddress, message(src.inboxAddress, "New blend", "text/html", match, "lt-match@provider.example"), src.id)).toStartWith("250");
      const items = await itemsOf("Tagged mail");
      expect(items.map((i) => [i.title, i.tags])).toEqual([
        ["New blend", ["coffee"]],
        ["Angle brackets", []],
      ]);
    },
    budgetMs,
  );
});

describe("hostile mail markup", () => {
  test(
    "100,000 nested elements then 100,000 unmatched end tags: health answers while it is read; the mail is added",
    async () => {
      const src = await inbox({ name: "Deep mail" });
      // A parser that keeps its open elements searches all of them at each unmatched end tag.
      const html = `${"<div>".repeat(100_000)}Deep inside${"</x>".repeat(100_000)}`;
      const reply = await sendAskingHealth(src.inboxAddress, message(src.inboxAddress, "Deep markup", "text/html", html, "deep@provider.example"), src.id);
      expect(reply).toStartWith("250");
      expect((await itemsOf("Deep mail")).map((i) => i.title)).toEqual(["Deep markup"]);
      expect((await call(`/api/sources/${src.id}/messages`)).body.messages).toMatchObject([{ status: "added" }]);
    },
    // The item's page is extracted as any saved page: the save waits up to TROVE_INGEST_WAIT_MS (8 s) for it.
    budgetMs * 2,
  );
});

describe("hostile feeds and pages", () => {
  test(
    "a rollup of 20 entries of one 50,000-letter word: health answers while they are read; one digest is added",
    async () => {
      const word = `${"a".repeat(49_998)}.b`;
      const entries: FixtureEntry[] = Array.from({ length: 20 }, (_, i) => ({ id: `w${i}`, title: `Word ${i}`, link: `https://words.example/${i}`, at: 1_700_000_000 + i, html: word }));
      const held = heldResponse(rss2("Long Words", entries), "application/rss+xml");
      const url = feeds.route("/long-words.xml", held.respond);
      const creating = call("/api/sources", { json: { type: "rss", feedUrl: url, rollupEnabled: true, backfillItems: 20 } });
      await held.holding;
      await health();
      // The feed arrives whole now and its entries are read; health is asked at the same moment.
      held.release();
      await health();
      const created = await creating;
      expect(created.status).toBe(200);
      expect(created.body.initialRun).toMatchObject({ status: "ok", itemsAdded: 1, entriesSeen: 20 });
      const items = await itemsOf("Long Words");
      expect(items.map((i) => i.title)).toEqual([expect.stringMatching(/^Long Words: 20 new entries, \d{4}-\d{2}-\d{2}$/)]);
      // One sentence is too few for a summary: each entry is listed with the first 300 characters of its text.
      const md = (await call(`/api/items/${items[0]!.id}`)).body.contentMarkdown as string;
      expect(md).toContain("Word 19");
      expect(md).toContain("a".repeat(300));
      expect(md).not.toContain("a".repeat(301));
    },
    budgetMs,
  );

  test(
    "a site page of 1 MB of '<link': health answers while it is read; discovery goes on to the feed at /feed",
    async () => {
      const held = heldResponse(`<html><head>${"<link".repeat(200_000)}`, "text/html; charset=utf-8");
      feeds.route("/", held.respond);
      const feedUrl = feeds.feed("/feed", rss2("Found Feed", [{ id: "f1", title: "First", link: "https://found.example/1", at: 1_700_000_000 }]));
      const creating = call("/api/sources", { json: { type: "rss", input: `${feeds.base}/` } });
      await held.holding;
      await health();
      held.release();
      await health();
      const created = await creating;
      expect(created.status).toBe(200);
      expect(created.body.source.target).toBe(feedUrl);
      expect(created.body.initialRun).toMatchObject({ status: "ok", entriesSeen: 1 });
    },
    pageBudgetMs,
  );
});
