// End to end over HTTP against real processes. Real: NATS with JetStream, PostgreSQL, every service its own
// process (`bun run services/<name>/main.ts`), and `bun run start` (all services, one process) over the same.
// These processes resolve names with the system resolver, so a URL saved without `html` names a `.invalid` host
// (refused without asking the network, RFC 6761) or a loopback address: no test here reaches DNS.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { NatsBus } from "@trove/bus/nats.ts";
import { itemEventsFilter } from "@trove/contracts";
import { createLogger } from "@trove/log";
import {
  aliceKey,
  backingServices,
  eventually,
  bobKey,
  freePort,
  articleHtml,
  launchDistributed,
  processEnv,
  startPageServer,
  spawnBun,
  waitForHealth,
  type Backing,
  type Topology,
} from "@trove/testing";

const backing = await backingServices();

const call = async (url: string, path: string, init: RequestInit & { key?: string | null; json?: unknown } = {}) => {
  const { key = aliceKey, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (key) headers.set("authorization", `Bearer ${key}`);
  if (json !== undefined) headers.set("content-type", "application/json");
  const res = await fetch(url + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as any) : null };
};

if ("skip" in backing) {
  console.log(`SKIPPED end-to-end suite: ${backing.skip}`);
  describe.skip(`distributed topology (skipped: ${backing.skip})`, () => test("every end-to-end test", () => {}));
  describe.skip(`bun run start over PostgreSQL and NATS (skipped: ${backing.skip})`, () => test("runs every service in one process", () => {}));
} else {
  const b: Backing = backing;
  let topo: Topology;
  beforeAll(async () => {
    topo = await launchDistributed(b);
  });
  afterAll(async () => {
    await topo?.stop();
    await b.stop();
  });

  describe(`distributed topology (${b.how})`, () => {
    test("health reports PostgreSQL, NATS and every service", async () => {
      const { status, body } = await call(topo.url, "/api/health", { key: null });
      expect(status).toBe(200);
      expect(body).toMatchObject({ status: "ok", deployment: "distributed", database: { kind: "postgres", ok: true }, bus: { kind: "nats", ok: true } });
      expect(Object.values(body.services).every((s: any) => s.ok)).toBe(true);
    });

    test("the gateway process serves MCP at /mcp: tools reach the items and notes processes over NATS", async () => {
      const client = new Client({ name: "e2e", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${topo.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${aliceKey}` } } }));
      try {
        const tool = async (name: string, args: Record<string, unknown>) => {
          const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
          return { isError: r.isError === true, body: JSON.parse(r.content[0]!.text) };
        };
        const saved = await tool("save_url", { url: "https://e2e.example.test/mcp", html: articleHtml });
        expect(saved).toMatchObject({ isError: false, body: { extracted: true } });
        const read = await tool("read_item", { id: saved.body.id, view: "lines", lines: "1:5" });
        expect(read.body.text.length).toBeGreaterThan(0);
        const note = await tool("create_note", { title: "From an agent", bodyMarkdown: "one" });
        await tool("append_note", { id: note.body.note.id, bodyMarkdown: "two" });
        const stale = await tool("update_note", { id: note.body.note.id, expectedRevision: 1, bodyMarkdown: "mine" });
        expect(stale).toMatchObject({ isError: true, body: { error: "revision_conflict", currentRevision: 2 } });
      } finally {
        await client.close();
      }
    });

    test("a saved page goes gateway -> NATS -> items -> PostgreSQL and reads back", async () => {
      const saved = await call(topo.url, "/api/ingest", { method: "POST", json: { url: "https://e2e.example.invalid/article?utm_medium=x" } });
      expect(saved.status).toBe(200);
      expect(saved.body).toMatchObject({ ok: true, url: "https://e2e.example.invalid/article", extracted: false, extractError: expect.stringMatching(/^dns: .*e2e\.example\.invalid/) });
      const item = await call(topo.url, `/api/items/${saved.body.id}`);
      expect(item.status).toBe(200);
      expect(item.body).toMatchObject({ id: saved.body.id, status: "stashed", timesAdded: 1 });
      const again = await call(topo.url, "/api/ingest", { method: "POST", json: { url: "https://e2e.example.invalid/article" } });
      expect(again.body.id).toBe(saved.body.id);
      const list = await call(topo.url, "/api/items");
      expect(list.body.items.map((i: any) => i.id)).toContain(saved.body.id);
      expect((await call(topo.url, `/api/items/${saved.body.id}`, { key: bobKey })).status).toBe(404);
    });

    test("the items process fetches and extracts a page served locally", async () => {
      const pages = startPageServer();
      try {
        const saved = await call(topo.url, "/api/ingest", { method: "POST", json: { url: `${pages.url}/article` } });
        expect(saved.body).toMatchObject({ ok: true, extracted: true });
        const item = await call(topo.url, `/api/items/${saved.body.id}`);
        expect(item.body.title).toBe("Parsing Things Well");
        expect(item.body.contentMarkdown).toContain("```typescript");
      } finally {
        pages.stop();
      }
    });

    test("replies over 1 MB (a list with content) cross NATS intact", async () => {
      const words = Array.from({ length: 40_000 }, (_, i) => `word${i}`).join(" "); // under the content cap
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const html = `<html><body><article><h1>Big ${i}</h1><p>${words}</p></article></body></html>`;
        ids.push((await call(topo.url, "/api/ingest", { method: "POST", json: { url: `https://big.example.test/${i}`, html } })).body.id);
      }
      const res = await fetch(`${topo.url}/api/items?include=content&source=big.example.test`, { headers: { authorization: `Bearer ${aliceKey}` } });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(text.length).toBeGreaterThan(1_200_000);
      const list = JSON.parse(text);
      expect(list.items.map((i: any) => i.id).sort()).toEqual(ids.sort());
      expect(list.items.every((i: any) => i.contentMarkdown.includes("word39999"))).toBe(true);
    });

    test("an uploaded image round-trips through the object store", async () => {
      const saved = await call(topo.url, "/api/ingest", { method: "POST", json: { url: "https://img.example.test/", html: articleHtml } });
      const png = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.alloc(2_000_000, 7)]);
      const up = await call(topo.url, `/api/items/${saved.body.id}/media`, { method: "POST", json: { contentType: "image/png", dataBase64: png.toString("base64") } });
      expect(up.status).toBe(200);
      const res = await fetch(`${topo.url}${up.body.media.url}`, { headers: { authorization: `Bearer ${aliceKey}` } });
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await res.arrayBuffer()).equals(png)).toBe(true);
    });

    test("bad input answers 4xx JSON across the topology", async () => {
      const bad = await call(topo.url, "/api/ingest", { method: "POST", json: { url: "javascript:alert(1)" } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe("validation_failed");
      expect((await call(topo.url, "/api/items?limit=5000")).status).toBe(400);
      expect((await call(topo.url, "/api/items", { key: "wrong-key-0123456789" })).status).toBe(401);
    });

    test("notes across processes: 30 parallel appends and 20 conflicting replaces keep revisions dense and lose nothing", async () => {
      const created = await call(topo.url, "/api/notes", { method: "POST", json: { title: "Distributed", bodyMarkdown: "" } });
      expect(created.status).toBe(200);
      const id = created.body.note.id;
      const appends = await Promise.all(Array.from({ length: 30 }, (_, i) => call(topo.url, `/api/notes/${id}/append`, { method: "POST", json: { bodyMarkdown: `dist-${i}` } })));
      expect(appends.map((r) => r.status)).toEqual(Array(30).fill(200));
      expect(appends.map((r) => r.body.revision.revisionNumber).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 2));
      const replaces = await Promise.all(Array.from({ length: 20 }, (_, i) => call(topo.url, `/api/notes/${id}`, { method: "PATCH", json: { expectedRevision: 31, title: `t${i}` } })));
      expect(replaces.filter((r) => r.status === 200)).toHaveLength(1);
      expect(replaces.filter((r) => r.status === 409 && r.body.currentRevision === 32)).toHaveLength(19);
      const note = (await call(topo.url, `/api/notes/${id}`)).body.note;
      expect(note.currentRevision).toBe(32);
      for (let i = 0; i < 30; i++) expect(note.bodyMarkdown).toContain(`dist-${i}`);
      const history = (await call(topo.url, `/api/notes/${id}/history?limit=200`)).body;
      expect(history.revisions.map((r: any) => r.revisionNumber)).toEqual(Array.from({ length: 32 }, (_, i) => 32 - i));
    });

    test("a stopped service shows in health and answers 503; started again, it serves again", async () => {
      const items = topo.procs.get("items")!;
      items.kill("SIGTERM");
      expect(await items.exited).toBe(0); // graceful stop
      const health = await waitForHealth(topo.url, "degraded", 10_000);
      expect(health.services.items.ok).toBe(false);
      const down = await call(topo.url, "/api/items");
      expect(down.status).toBe(503);
      expect(down.body.error).toBe("service_unavailable");
      topo.restart("items");
      await waitForHealth(topo.url, "ok");
      expect((await call(topo.url, "/api/items")).status).toBe(200);
    });

    test("items killed in a burst of changes: after a restart every logged event is on JetStream once, and the change stream walks each once", async () => {
      const walk = async (cursor?: string) => {
        const ids: string[] = [];
        for (;;) {
          const page = await call(topo.url, `/api/items/changes?limit=1000${cursor ? `&cursor=${cursor}` : ""}`);
          expect(page.status).toBe(200);
          ids.push(...page.body.events.map((e: { id: string }) => e.id));
          cursor = page.body.nextCursor;
          if (!page.body.hasMore) return { ids, cursor: cursor! };
        }
      };
      const start = (await walk()).cursor;
      const saved = await call(topo.url, "/api/ingest", { method: "POST", json: { url: "https://burst.example.invalid/page", html: articleHtml } });
      expect(saved.status).toBe(200);
      let acknowledged = 0;
      const writers = Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; i < 15; i++) {
          const r = await call(topo.url, `/api/items/${saved.body.id}`, { method: "POST", json: { notes: `writer ${w} ${i}`, tags: [`w${w}-${i % 3}`] } });
          if (r.status === 200) acknowledged++;
        }
      });
      await eventually(() => acknowledged >= 8, 30_000);
      const items = topo.procs.get("items")!;
      items.kill("SIGKILL");
      await items.exited;
      await Promise.all(writers);
      topo.restart("items");
      await waitForHealth(topo.url, "ok");
      const walked = (await walk(start)).ids;
      expect(walked.length).toBeGreaterThanOrEqual(1 + acknowledged);
      expect(new Set(walked).size).toBe(walked.length);
      // Everything the relay published, read back from the stream itself.
      const bus = await NatsBus.connect({ url: b.natsUrl, prefix: b.prefix, log: createLogger("warn") });
      const seen = new Map<string, number>();
      const sub = await bus.consume({ durable: `e2e-watch-${crypto.randomUUID().slice(0, 8)}`, filter: itemEventsFilter }, async (ev) => {
        seen.set(ev.id, (seen.get(ev.id) ?? 0) + 1);
      });
      try {
        await eventually(() => walked.every((id) => seen.has(id)), 30_000);
        expect([...seen.values()].every((count) => count === 1)).toBe(true);
      } finally {
        await sub.stop();
        await bus.close();
      }
    });
  });

  describe("bun run start over PostgreSQL and NATS", () => {
    test("runs every service in one process and stops cleanly on SIGTERM", async () => {
      const port = await freePort();
      // Its own bus namespace, so it does not answer the distributed topology's requests.
      const proc = spawnBun("start", processEnv({ ...b, prefix: `${b.prefix}one` }, port));
      try {
        const url = `http://127.0.0.1:${port}`;
        const health = await waitForHealth(url);
        expect(health).toMatchObject({ deployment: "distributed", database: { kind: "postgres" }, bus: { kind: "nats" } });
        const saved = await call(url, "/api/ingest", { method: "POST", json: { url: "https://one.example.invalid/" } });
        expect(saved.status).toBe(200);
        expect((await call(url, `/api/items/${saved.body.id}`)).status).toBe(200);
      } finally {
        proc.kill("SIGTERM");
      }
      expect(await proc.exited).toBe(0);
    });
  });
}
