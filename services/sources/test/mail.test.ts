// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS) with the sources service's
// SMTP listener on a free port of 127.0.0.1, and nodemailer as the sender. What a user sees: the SMTP replies a
// sender gets, the items the inbox added (GET /api/items), and GET /messages and /confirmation. A message answered
// 250 is kept and then made an item in the background, so what it becomes is waited for.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addClientKey, bobKey, eventually, freePort, startTrove, type TestTrove } from "@trove/testing";
import nodemailer from "nodemailer";
import { mailSizeLimit } from "../mail-listener.ts";

let trove: TestTrove;
let port: number;

beforeAll(async () => {
  port = await freePort();
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000", TROVE_SMTP_PORT: String(port), TROVE_INBOX_DOMAIN: "in.trove.test" });
});
afterAll(async () => {
  await trove?.stop();
});

async function call(path: string, init: { json?: unknown; key?: string } = {}) {
  const res = await trove.api(path, { method: init.json === undefined ? "GET" : "POST", json: init.json, key: init.key });
  return { status: res.status, body: await res.json() };
}
async function inbox(json: Record<string, unknown> = {}, key?: string) {
  const r = await call("/api/sources", { json: { type: "email_inbox", ...json }, key });
  expect(r.status).toBe(200);
  return r.body.source as { id: string; name: string; inboxAddress: string };
}
const messages = async (id: string) => (await call(`/api/sources/${id}/messages`)).body.messages as any[];
async function itemsOf(name: string) {
  return (await call(`/api/items?source=${encodeURIComponent(name)}&limit=100`)).body.items as { id: string; title: string; url: string; tags: string[] }[];
}
/** The inbox's items once it has listed `n` messages (each one taken has become an item, a duplicate or a failure). */
async function settled(id: string, name: string, n: number) {
  await eventually(async () => (await messages(id)).length >= n, 30_000);
  return itemsOf(name);
}

const transport = () => nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, pool: false });
type Mail = Parameters<ReturnType<typeof transport>["sendMail"]>[0];
async function send(mail: Mail): Promise<{ ok: true } | { ok: false; code: number | undefined }> {
  try {
    await transport().sendMail({ from: "Weekly News <news@letters.example>", ...mail });
    return { ok: true };
  } catch (err) {
    return { ok: false, code: (err as { responseCode?: number }).responseCode };
  }
}

const prose =
  "Rust compilers got faster this year. The weather in the valley was pleasant. The Rust borrow checker keeps memory safety in Rust programs. " +
  "Our cat slept most of the afternoon. Memory safety matters for Rust programs and Rust compilers alike. Bread tastes better with butter.";

describe("email inbox", () => {
  test("an HTML newsletter becomes an item: its web version as URL, subject as title, default and smart tags by sender", async () => {
    const src = await inbox({ name: "Letters", defaultTags: ["newsletter"], smartTagRules: [{ field: "author", contains: "letters.example", tags: ["weekly"] }] });
    expect(src.inboxAddress).toMatch(/^[a-z2-7]{20}@in\.trove\.test$/);
    const html = `<html><body><p><a href="https://letters.example/issues/42?utm=x&amp;y=1">View this email in your browser</a></p>` +
      `<h1>Issue 42</h1><p>${prose}</p><p><a href="https://letters.example/unsubscribe">Unsubscribe</a></p></body></html>`;
    const sent = await send({ to: src.inboxAddress, subject: "Issue 42: faster compilers", html, messageId: "<issue-42@letters.example>", attachments: [{ filename: "a.bin", content: Buffer.alloc(2048, 7) }] });
    expect(sent).toEqual({ ok: true });
    const items = await settled(src.id, "Letters", 1);
    expect(items.map((i) => [i.title, i.url, [...i.tags].sort()])).toEqual([["Issue 42: faster compilers", "https://letters.example/issues/42?utm=x&y=1", ["newsletter", "weekly"]]]);
    const full = (await call(`/api/items/${items[0]!.id}`)).body;
    expect(full.contentMarkdown).toContain("borrow checker");
    // Not autoSummarize: no summary.
    expect(full.contentMarkdown).not.toContain("Summary:");
    const list = await messages(src.id);
    expect(list).toMatchObject([{ from: "news@letters.example", subject: "Issue 42: faster compilers", messageId: "<issue-42@letters.example>", itemId: items[0]!.id, status: "added", error: null }]);
    expect(list[0].receivedAt).toBeGreaterThan(0);
    const source = (await call(`/api/sources/${src.id}`)).body.source;
    expect(source).toMatchObject({ itemCount: 1, lastError: null });
  });

  test("the web version is found in other languages, and in an Archived-At header", async () => {
    const src = await inbox({ name: "Abroad" });
    const german = `<p><a href="https://brief.example/ausgabe/7">Im Browser ansehen</a></p><p>Neuigkeiten der Woche.</p>`;
    expect(await send({ to: src.inboxAddress, subject: "Ausgabe 7", html: german, messageId: "<de-7@brief.example>" })).toEqual({ ok: true });
    const archived = { "Archived-At": "<https://lists.example/archive/2026/msg00042.html>" };
    expect(await send({ to: src.inboxAddress, subject: "List post", text: "A post to the list.", headers: archived, messageId: "<list-42@lists.example>" })).toEqual({ ok: true });
    expect((await settled(src.id, "Abroad", 2)).map((i) => [i.title, i.url])).toEqual([
      ["List post", "https://lists.example/archive/2026/msg00042.html"],
      ["Ausgabe 7", "https://brief.example/ausgabe/7"],
    ]);
  });

  test("plain text becomes paragraphs under a stable Trove address; autoSummarize puts a summary above it", async () => {
    const src = await inbox({ name: "Plain", autoSummarize: true });
    expect(await send({ to: src.inboxAddress, subject: "Plain words", text: `Dear <reader>, this is the letter.\n\n${prose}`, messageId: "<plain-1@letters.example>" })).toEqual({ ok: true });
    const [item] = await settled(src.id, "Plain", 1);
    expect(item!.url).toMatch(new RegExp(`^https://in\\.trove\\.test/sources/${src.id}/messages/[0-9a-f]{32}$`));
    const md = (await call(`/api/items/${item!.id}`)).body.contentMarkdown as string;
    expect(md).toContain("Summary:");
    // The three most characteristic sentences, in their order; the cat is not among them.
    const summary = md.slice(md.indexOf("Summary:"), md.indexOf("\n"));
    // The text itself follows, HTML-escaped (the markup-like "<reader>" is text, not a tag).
    expect(md.slice(summary.length)).toContain("<reader>");
    expect(md.slice(summary.length)).toContain("cat slept");
    expect(summary).toContain("borrow checker");
    expect(summary).not.toContain("cat slept");
  });

  test("an unknown recipient is refused with 550 at RCPT; a paused inbox defers with 450", async () => {
    const src = await inbox({ name: "Pausable" });
    expect(await send({ to: "nobody0000000000000x@in.trove.test", subject: "hi", text: "hi" })).toEqual({ ok: false, code: 550 });
    expect((await call(`/api/sources/${src.id}/pause`, { json: {} })).status).toBe(200);
    expect(await send({ to: src.inboxAddress, subject: "hi", text: "hi" })).toEqual({ ok: false, code: 450 });
    expect((await call(`/api/sources/${src.id}/resume`, { json: {} })).status).toBe(200);
    expect(await send({ to: src.inboxAddress, subject: "after resume", text: "hi" })).toEqual({ ok: true });
    expect((await settled(src.id, "Pausable", 1)).map((i) => i.title)).toEqual(["after resume"]);
  });

  test("an oversized message is refused with 552 and nothing is recorded", async () => {
    const src = await inbox({ name: "Big" });
    expect(await send({ to: src.inboxAddress, subject: "huge", text: "x".repeat(mailSizeLimit + 1024) })).toEqual({ ok: false, code: 552 });
    expect(await messages(src.id)).toEqual([]);
    expect(await itemsOf("Big")).toEqual([]);
  });

  test("malformed MIME does not take the listener down; the next message is added", async () => {
    const src = await inbox({ name: "Broken" });
    const raw = [
      `From: broken@letters.example`,
      `To: ${src.inboxAddress}`,
      `Subject: =?utf-8?B?broken`,
      `Message-ID: <broken-1@letters.example>`,
      `Content-Type: multipart/mixed; boundary="never-closed`,
      `Content-Transfer-Encoding: base64`,
      ``,
      `--wrong-boundary`,
      `Content-Type: text/html; charset=no-such-charset`,
      `Content-Transfer-Encoding: quoted-printable`,
      ``,
      `<p>=ZZ=4 broken =\r\n<b>tags <i>never closed`,
      `!!!not base64!!!`,
    ].join("\r\n");
    // Kept like any message: whatever it becomes (an item of what could be read, or a listed failure)...
    expect(await send({ envelope: { from: "broken@letters.example", to: [src.inboxAddress] }, raw })).toEqual({ ok: true });
    // ...the listener takes the next message.
    expect(await send({ to: src.inboxAddress, subject: "after the broken one", text: "still here", messageId: "<ok-after@letters.example>" })).toEqual({ ok: true });
    expect((await settled(src.id, "Broken", 2)).map((i) => i.title)).toContain("after the broken one");
  });

  test("a duplicate Message-ID makes one item; the repeat is listed as a duplicate of it", async () => {
    const src = await inbox({ name: "Dupes" });
    const mail = { to: src.inboxAddress, subject: "Once only", text: "The same message twice.", messageId: "<same@letters.example>" };
    expect(await send(mail)).toEqual({ ok: true });
    expect(await send(mail)).toEqual({ ok: true });
    const items = await settled(src.id, "Dupes", 2);
    expect(items.length).toBe(1);
    expect((await messages(src.id)).map((m) => [m.status, m.itemId])).toEqual([
      ["duplicate", items[0]!.id],
      ["added", items[0]!.id],
    ]);
    expect((await call(`/api/sources/${src.id}`)).body.source.itemCount).toBe(1);
  });

  test("a provider's confirmation mail shows under /confirmation, the latest one winning", async () => {
    const src = await inbox({ name: "Forwarded" });
    expect((await call(`/api/sources/${src.id}/confirmation`)).body).toEqual({ confirmation: null });
    const gmail = (code: string) => ({
      from: "Gmail Team <forwarding-noreply@google.com>",
      to: src.inboxAddress,
      subject: `(#${code}) Gmail Forwarding Confirmation - Receive Mail from someone@gmail.com`,
      text: `someone@gmail.com has requested to automatically forward mail to your email address.\n\nConfirmation code: ${code}\n\n` +
        `To allow someone@gmail.com to automatically forward mail to your address, please click the link below to confirm the request:\n\n` +
        `https://mail-settings.google.com/mail/vf-%5BANGjdJ${code}%5D-confirm\n`,
    });
    expect(await send(gmail("111222333"))).toEqual({ ok: true });
    expect(await send(gmail("987654321"))).toEqual({ ok: true });
    await eventually(async () => (await messages(src.id)).length === 2, 30_000);
    const { confirmation } = (await call(`/api/sources/${src.id}/confirmation`)).body;
    expect(confirmation).toMatchObject({
      code: "987654321",
      link: "https://mail-settings.google.com/mail/vf-%5BANGjdJ987654321%5D-confirm",
      from: "forwarding-noreply@google.com",
    });
    expect(confirmation.subject).toContain("Gmail Forwarding Confirmation");

    // Following it acts for the owner: a connected client's key, read-write or read-only, does not get it. The
    // mail log (sender, subject, status) stays readable to them, like the items the mail became.
    for (const access of ["read_write", "read_only"] as const) {
      const key = await addClientKey(trove, { access });
      const refused = await call(`/api/sources/${src.id}/confirmation`, { key });
      expect({ access, status: refused.status, error: refused.body.error }).toEqual({ access, status: 403, error: "forbidden" });
      expect(JSON.stringify(refused.body)).not.toContain("987654321");
      expect((await call(`/api/sources/${src.id}/messages`, { key })).status).toBe(200);
    }
  });

  test("messages and confirmation: 404 for another account's inbox and for a source that is not an inbox", async () => {
    const src = await inbox({ name: "Mine" });
    for (const path of ["messages", "confirmation"]) {
      const other = await call(`/api/sources/${src.id}/${path}`, { key: bobKey });
      expect([other.status, other.body.error]).toEqual([404, "not_found"]);
    }
    const feed = await call("/api/sources", { json: { type: "rss", feedUrl: "http://127.0.0.1:9/not-an-inbox.xml" } });
    for (const path of ["messages", "confirmation"]) {
      const r = await call(`/api/sources/${feed.body.source.id}/${path}`);
      expect([r.status, r.body.error]).toEqual([404, "not_found"]);
    }
  });
});
