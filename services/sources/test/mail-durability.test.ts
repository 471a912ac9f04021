// Mail answered 250 is never lost. Real: every service in-process (PGlite + the in-process bus, or PostgreSQL +
// NATS) with the sources service's SMTP listener on a free port of 127.0.0.1 and nodemailer as the sender. A Trove
// whose items service is not running takes mail it cannot add yet; a sources schema that refuses writes stands
// for a database fault of ours; a restart stands for a process that stopped with mail waiting. What a user sees:
// the SMTP replies a sender gets, GET /api/health, the items (GET /api/items) and GET /api/sources/:id/messages.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { migrateModules, type RunningService } from "@trove/host";
import { itemsService } from "@trove/items";
import { acceptWrites, eventually, freePort, refuseWrites, startTrove, type TestTrove } from "@trove/testing";
import nodemailer from "nodemailer";

const env = (port: number, extra: Record<string, string> = {}) => ({
  TROVE_RATE_LIMIT: "100000",
  TROVE_SMTP_PORT: String(port),
  TROVE_INBOX_DOMAIN: "in.trove.test",
  ...extra,
});

async function call(t: TestTrove, path: string, json?: unknown) {
  const res = await t.api(path, { method: json === undefined ? "GET" : "POST", json });
  return { status: res.status, body: await res.json() };
}
async function inbox(t: TestTrove, name: string, json: Record<string, unknown> = {}) {
  const r = await call(t, "/api/sources", { type: "email_inbox", name, ...json });
  expect(r.status).toBe(200);
  return r.body.source as { id: string; name: string; inboxAddress: string };
}
const messages = async (t: TestTrove, id: string) => (await call(t, `/api/sources/${id}/messages`)).body.messages as any[];
const itemsOf = async (t: TestTrove, name: string) =>
  (await call(t, `/api/items?source=${encodeURIComponent(name)}&limit=100`)).body.items as { id: string; title: string; url: string; tags: string[] }[];

type Mail = Parameters<ReturnType<typeof nodemailer.createTransport>["sendMail"]>[0];
async function send(port: number, mail: Mail): Promise<{ ok: true } | { ok: false; code: number | undefined }> {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, pool: false });
  try {
    await transport.sendMail({ from: "Weekly News <news@letters.example>", ...mail });
    return { ok: true };
  } catch (err) {
    return { ok: false, code: (err as { responseCode?: number }).responseCode };
  }
}

/** The sources service's work queue as GET /api/health shows it. */
async function sourcesQueue(t: TestTrove): Promise<{ queued: number; due: number; running: number } | undefined> {
  const res = await t.api("/api/health", { key: null });
  return (await res.json()).services?.sources?.queue;
}

const letter = (n: number) => `<p><a href="https://letters.example/issues/${n}">View this email in your browser</a></p><h1>Issue ${n}</h1><p>News of the week, number ${n}.</p>`;

describe("mail taken while the items service is down", () => {
  let trove: TestTrove;
  let port: number;
  let items: RunningService | undefined;

  beforeAll(async () => {
    port = await freePort();
    // The smallest spool there is: one message of the largest size the listener takes.
    trove = await startTrove(env(port, { TROVE_MAIL_SPOOL_BYTES: String(10 * 1024 * 1024) }), { without: ["items"] });
  });
  afterAll(async () => {
    await items?.stop();
    await trove?.stop();
  });

  test("is answered 250 and kept; once the items service runs it becomes an item; a full spool answers 452 until then", async () => {
    const src = await inbox(trove, "Letters", { defaultTags: ["newsletter"] });
    expect(await send(port, { to: src.inboxAddress, subject: "Issue 7", html: letter(7), messageId: "<issue-7@letters.example>" })).toEqual({ ok: true });
    // Its item could not be added: the message waits for another try (queued, not due yet), and is not listed.
    await eventually(async () => {
      const q = await sourcesQueue(trove);
      return q !== undefined && q.queued >= 1 && q.due === 0 && q.running === 0;
    }, 30_000);
    expect(await messages(trove, src.id)).toEqual([]);

    // Two large messages (an attachment of 6 MB each): the first fits in what is left of the spool, the second
    // does not and is deferred (452), which a sender tries again later.
    const attachment = (n: number) => [{ filename: `report-${n}.bin`, content: Buffer.alloc(6 * 1024 * 1024, n) }];
    expect(await send(port, { to: src.inboxAddress, subject: "Report 1", text: "The first report.", messageId: "<report-1@letters.example>", attachments: attachment(1) })).toEqual({ ok: true });
    const second = { to: src.inboxAddress, subject: "Report 2", text: "The second report.", messageId: "<report-2@letters.example>", attachments: attachment(2) };
    expect(await send(port, second)).toEqual({ ok: false, code: 452 });

    await migrateModules([itemsService], trove.runtime.database);
    items = await itemsService.start(trove.runtime);
    // The next try comes after the queue's backoff; the test moves the queue's clock a day on instead of waiting.
    const jobs = trove.runtime.jobs.for("sources");
    await eventually(async () => {
      await jobs.runDue({ now: Date.now() + 86_400_000 });
      return (await messages(trove, src.id)).length === 2;
    }, 60_000);
    // The spool has room again: the deferred message, sent again, is taken.
    expect(await send(port, second)).toEqual({ ok: true });
    await eventually(async () => (await messages(trove, src.id)).length === 3, 30_000);

    const added = await itemsOf(trove, "Letters");
    expect(added.map((i) => [i.title, i.tags]).sort()).toEqual([
      ["Issue 7", ["newsletter"]],
      ["Report 1", ["newsletter"]],
      ["Report 2", ["newsletter"]],
    ]);
    expect(added.find((i) => i.title === "Issue 7")!.url).toBe("https://letters.example/issues/7");
    const list = await messages(trove, src.id);
    expect(list.map((m) => [m.subject, m.status, m.error]).sort()).toEqual([
      ["Issue 7", "added", null],
      ["Report 1", "added", null],
      ["Report 2", "added", null],
    ]);
    for (const m of list) expect(m.itemId).toBe(added.find((i) => i.title === m.subject)!.id);
    expect((await call(trove, `/api/sources/${src.id}`)).body.source).toMatchObject({ itemCount: 3, lastError: null });
  }, 180_000);
});

describe("faults of ours and unreadable mail", () => {
  let trove: TestTrove;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    trove = await startTrove(env(port));
  });
  afterAll(async () => {
    await acceptWrites(trove.db, "sources").catch(() => {});
    await trove?.stop();
  });

  test("a database that refuses writes is answered 451 (try again later), never 5xx; the same message sent again is taken", async () => {
    const src = await inbox(trove, "Deferred");
    const mail = { to: src.inboxAddress, subject: "Sent twice", html: letter(9), messageId: "<twice@letters.example>" };
    await refuseWrites(trove.db, "sources");
    try {
      expect(await send(port, mail)).toEqual({ ok: false, code: 451 });
    } finally {
      await acceptWrites(trove.db, "sources");
    }
    expect(await messages(trove, src.id)).toEqual([]);
    // As a sender's queue does after a 4xx.
    expect(await send(port, mail)).toEqual({ ok: true });
    await eventually(async () => (await messages(trove, src.id)).length === 1, 30_000);
    expect((await itemsOf(trove, "Deferred")).map((i) => i.title)).toEqual(["Sent twice"]);
    expect((await messages(trove, src.id)).map((m) => [m.subject, m.status])).toEqual([["Sent twice", "added"]]);
  }, 90_000);

  test("a message tried again after its item was saved is one item, with its title and tags, listed and counted once", async () => {
    const src = await inbox(trove, "Retried", { defaultTags: ["letters"] });
    // The item is saved, then the listing cannot be written: the message is tried again later.
    await refuseWrites(trove.db, "sources", ["messages"]);
    try {
      expect(await send(port, { to: src.inboxAddress, subject: "Issue 12", html: letter(12), messageId: "<issue-12@letters.example>" })).toEqual({ ok: true });
      await eventually(async () => (await itemsOf(trove, "Retried")).length === 1, 30_000);
      await eventually(async () => {
        const q = await sourcesQueue(trove);
        return q !== undefined && q.queued >= 1 && q.due === 0 && q.running === 0;
      }, 30_000);
    } finally {
      await acceptWrites(trove.db, "sources");
    }
    const jobs = trove.runtime.jobs.for("sources");
    await eventually(async () => {
      await jobs.runDue({ now: Date.now() + 86_400_000 });
      return (await messages(trove, src.id)).length === 1;
    }, 30_000);
    const items = await itemsOf(trove, "Retried");
    expect(items.map((i) => [i.title, i.tags, i.url])).toEqual([["Issue 12", ["letters"], "https://letters.example/issues/12"]]);
    expect((await messages(trove, src.id)).map((m) => [m.status, m.itemId])).toEqual([["added", items[0]!.id]]);
    expect((await call(trove, `/api/sources/${src.id}`)).body.source).toMatchObject({ itemCount: 1, lastError: null });
    const events = (await call(trove, `/api/sources/${src.id}/events`)).body.events as { type: string }[];
    expect(events.filter((e) => e.type === "message")).toHaveLength(1);
  }, 90_000);

  test("a message that cannot be read is answered 250 and listed as failed, with why", async () => {
    const src = await inbox(trove, "Unreadable");
    // A header of more than 1 MiB: the parser gives up on it.
    const raw = [
      "From: Weekly News <news@letters.example>",
      `To: ${src.inboxAddress}`,
      "Subject: Too much header",
      "Message-ID: <huge-header@letters.example>",
      `X-Filler: ${"a".repeat(1_100_000)}`,
      "",
      "Hello.",
    ].join("\r\n");
    expect(await send(port, { envelope: { from: "news@letters.example", to: [src.inboxAddress] }, raw })).toEqual({ ok: true });
    await eventually(async () => (await messages(trove, src.id)).length === 1, 30_000);
    expect(await messages(trove, src.id)).toMatchObject([{ from: "news@letters.example", status: "failed", itemId: null, error: "the message could not be read" }]);
    expect(await itemsOf(trove, "Unreadable")).toEqual([]);
    expect((await call(trove, `/api/sources/${src.id}`)).body.source.lastError).toBe("a message was not added: the message could not be read");
    // The listener goes on.
    expect(await send(port, { to: src.inboxAddress, subject: "Readable", text: "Plain words." })).toEqual({ ok: true });
    await eventually(async () => (await messages(trove, src.id)).length === 2, 30_000);
    expect((await itemsOf(trove, "Unreadable")).map((i) => i.title)).toEqual(["Readable"]);
  }, 90_000);
});

describe("mail waiting when the Trove stops", () => {
  test("is added after a restart", async () => {
    const port = await freePort();
    const trove = await startTrove(env(port), { persistent: true, without: ["items"] });
    try {
      const src = await inbox(trove, "Restarted");
      expect(await send(port, { to: src.inboxAddress, subject: "Kept across a restart", html: letter(11), messageId: "<restart@letters.example>" })).toEqual({ ok: true });
      await trove.restart();
      await eventually(async () => (await messages(trove, src.id)).length === 1, 60_000);
      expect((await itemsOf(trove, "Restarted")).map((i) => i.title)).toEqual(["Kept across a restart"]);
      expect((await messages(trove, src.id)).map((m) => [m.subject, m.status])).toEqual([["Kept across a restart", "added"]]);
    } finally {
      await trove.stop();
    }
  }, 120_000);
});
