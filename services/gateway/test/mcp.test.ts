// The MCP server driven by the SDK's own client over both transports (Streamable HTTP at /mcp, and stdio through
// `trove-mcp` against TROVE_URL) on a running Trove (this suite runs on both deployments): every tool on real
// data, read-only and scoped keys, the safe source manifest, revision conflicts, bounded reads, tool errors.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { addClientKey, aliceKey, bobKey, eventually, repoRoot, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
const clients: Client[] = [];
beforeAll(async () => {
  trove = await startTrove();
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await trove.stop();
});

type Transport = "http" | "stdio";

async function connect(key: string, via: Transport = "http"): Promise<Client> {
  const client = new Client({ name: "trove-test", version: "1.0.0" });
  const transport =
    via === "http"
      ? new StreamableHTTPClientTransport(new URL(`${trove.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } })
      : new StdioClientTransport({
          command: process.execPath,
          args: [join(repoRoot, "libs", "mcp", "stdio.ts")],
          env: { PATH: process.env.PATH ?? "", TROVE_URL: trove.url, TROVE_API_KEY: key },
          stderr: "ignore",
        });
  await client.connect(transport);
  clients.push(client);
  return client;
}

interface ToolAnswer {
  isError: boolean;
  text: string;
  body: any;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[] };
  const text = result.content[0]?.text ?? "";
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    // a cut answer is text with a notice at its end
  }
  return { isError: result.isError === true, text, body };
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const answer = await call(client, name, args);
  if (answer.isError) throw new Error(`${name} failed: ${answer.text}`);
  return answer.body;
}

const page = (title: string, paragraphs: string[], extra = "") =>
  `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join("")}${extra}</article></body></html>`;
const bridge = page("The new bridge", [
  "The council met on Tuesday evening to discuss the new bridge over the river, and after a long debate the members agreed on the plans.",
  "The engineers said the work would start in spring and take two years, and that the old ferry would keep running until then.",
  "The bridge will cost four million, paid for by the region and the city together.",
]);

const toolNames = [
  "append_note", "context_brief", "create_highlight", "create_note", "feed", "link_note_item", "list_highlights", "list_items",
  "list_projects", "list_sources", "mark_processed", "note_context", "note_history", "poll_changes", "read_item", "read_note",
  "restore_note_revision", "save_url", "search", "update_item", "update_note",
];

for (const via of ["http", "stdio"] as const) {
  describe(`every tool over ${via === "http" ? "Streamable HTTP" : "stdio"}`, () => {
    test("items: save, list, read progressively, update, highlight, feed and mark processed", async () => {
      const client = await connect(aliceKey, via);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(toolNames);
      const url = `https://news.example.test/${via}/bridge`;
      const saved = await ok(client, "save_url", { url, html: bridge });
      expect(saved).toMatchObject({ url, extracted: true });
      const id: string = saved.id;

      const listed = await ok(client, "list_items", { limit: 100 });
      expect(listed.items.map((i: { id: string }) => i.id)).toContain(id);
      expect(listed.items[0]).not.toHaveProperty("content");

      const overview = await ok(client, "read_item", { id });
      expect(overview).toMatchObject({ view: "overview", lineCount: expect.any(Number) });
      expect(overview).not.toHaveProperty("text");
      const found = await ok(client, "read_item", { id, view: "search", q: "four million" });
      expect(found.windows[0].text).toContain("four million");
      const first = await ok(client, "read_item", { id, view: "lines", lines: "1:1" });
      expect(first.text).toContain("The council met");
      const full = await ok(client, "read_item", { id, view: "full" });
      expect(full.text).toContain("the old ferry");

      const updated = await ok(client, "update_item", { id, tags: ["infrastructure"], title: "The bridge plans" });
      expect(updated).toMatchObject({ title: "The bridge plans", tags: ["infrastructure"] });

      const highlight = await ok(client, "create_highlight", { itemId: id, text: "cost four million", note: "the budget" });
      expect(highlight.highlight).toMatchObject({ text: "cost four million", note: "the budget" });
      const highlights = await ok(client, "list_highlights", { itemId: id });
      expect(highlights.highlights.map((h: { id: string }) => h.id)).toContain(highlight.highlight.id);

      const feed = await ok(client, "feed", { limit: 50 });
      const inFeed = feed.items.find((i: { id: string }) => i.id === id);
      expect(inFeed.textStart).toContain("The council met");
      expect(await ok(client, "mark_processed", { ids: [id] })).toEqual({ processed: 1 });
      expect((await ok(client, "feed", { limit: 50 })).items.map((i: { id: string }) => i.id)).not.toContain(id);

      const changes = await ok(client, "poll_changes", { limit: 200 });
      expect(changes.events.some((e: { itemId: string; type: string }) => e.itemId === id && e.type === "item.created")).toBe(true);
      expect(changes.nextCursor).toEqual(expect.any(String));
      const after = await ok(client, "poll_changes", { cursor: changes.nextCursor });
      expect(after.events.filter((e: { itemId: string }) => e.itemId === id).length).toBeLessThanOrEqual(changes.events.length);
    });

    test("notes: create, read views, append, replace with expectedRevision, history, restore, item links, context", async () => {
      const client = await connect(aliceKey, via);
      const created = await ok(client, "create_note", { title: `Plan ${via}`, bodyMarkdown: "# Plan\n\nFirst step: survey the river.", tags: ["bridge"] });
      const noteId: string = created.note.id;
      expect(created.note.currentRevision).toBe(1);
      expect(await ok(client, "read_note", { id: noteId })).toMatchObject({ view: "overview", note: { currentRevision: 1 }, headings: [{ text: "Plan", line: 1 }] });
      expect((await ok(client, "read_note", { id: noteId, view: "search", q: "survey" })).windows[0].text).toContain("survey the river");
      expect((await ok(client, "read_note", { id: noteId, view: "lines", lines: "3:3" })).text).toBe("First step: survey the river.");

      await ok(client, "append_note", { id: noteId, bodyMarkdown: "Second step: order the steel." });
      const replaced = await ok(client, "update_note", { id: noteId, expectedRevision: 2, bodyMarkdown: "# Plan\n\nOnly one step now.", state: "open" });
      expect(replaced.note.currentRevision).toBe(3);
      expect((await ok(client, "read_note", { id: noteId, view: "full" })).text).toContain("Only one step now.");

      const history = await ok(client, "note_history", { id: noteId });
      expect(history.revisions.map((r: { revisionNumber: number }) => r.revisionNumber)).toEqual([3, 2, 1]);
      const restored = await ok(client, "restore_note_revision", { id: noteId, revision: 1, expectedRevision: 3 });
      expect(restored.note.currentRevision).toBe(4);
      expect((await ok(client, "read_note", { id: noteId, view: "lines", lines: "1:10" })).text).toContain("survey the river");
      expect((await ok(client, "read_note", { id: noteId, view: "lines", lines: "1:10", revision: 3 })).text).toContain("Only one step");

      const item = await ok(client, "save_url", { url: `https://news.example.test/${via}/for-note`, html: bridge });
      const link = await ok(client, "link_note_item", { id: noteId, itemId: item.id, relation: "source" });
      expect(link).toMatchObject({ existing: false, link: { itemId: item.id } });
      expect((await ok(client, "link_note_item", { id: noteId, itemId: item.id, relation: "source" })).existing).toBe(true);
      const context = await ok(client, "note_context", { id: noteId, content: true, contentBytes: 200 });
      expect(context.sources.map((s: { itemId: string }) => s.itemId)).toContain(item.id);
    });

    test("search, projects, the context brief, sources and resources", async () => {
      const client = await connect(aliceKey, via);
      const item = await ok(client, "save_url", { url: `https://news.example.test/${via}/kestrel`, html: page("Kestrels nest in the tower", ["A pair of kestrels came back to the church tower this spring, the warden said, and three chicks hatched in May."]) });
      const repository = `github.com/example/birds-${via}`;
      const note = await ok(client, "create_note", { title: `Kestrel count ${via}`, bodyMarkdown: "Counted the kestrels.", repository, paths: ["src/count.ts"] });
      await eventually(async () => {
        const hits = (await ok(client, "search", { q: "kestrels" })).results.map((r: { id: string }) => r.id);
        return hits.includes(item.id) && hits.includes(note.note.id);
      }, 20_000);
      const notesOnly = await ok(client, "search", { q: "kestrels", types: ["note"] });
      expect(notesOnly.results.every((r: { type: string }) => r.type === "note")).toBe(true);

      const project = await trove.api("/api/projects", { method: "POST", json: { name: `Birds ${via}`, repositories: [repository] } });
      expect(project.status).toBe(200);
      expect((await ok(client, "list_projects")).projects.map((p: { name: string }) => p.name)).toContain(`Birds ${via}`);
      const brief = await ok(client, "context_brief", { project: repository, path: "src/count.ts" });
      expect(brief.notes.map((n: { id: string }) => n.id)).toContain(note.note.id);
      expect(JSON.stringify(brief)).not.toContain("Counted the kestrels");

      expect(await ok(client, "list_sources")).toMatchObject({ sources: expect.any(Array) });

      const itemUri = `trove://items/${item.id}`;
      const listed: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 100; i++) {
        const res = await client.listResources(cursor ? { cursor } : {});
        listed.push(...res.resources.map((r) => r.uri));
        cursor = res.nextCursor;
        if (!cursor) break;
      }
      expect(listed).toContain(itemUri);
      expect(listed).toContain(`trove://notes/${note.note.id}`);
      const read = await client.readResource({ uri: itemUri });
      expect((read.contents[0] as { text: string }).text).toContain("three chicks hatched");
    });
  });
}

describe("keys and their limits hold through every tool", () => {
  test("a read-only key reads but cannot write through any tool", async () => {
    const item = await (await trove.api("/api/ingest", { method: "POST", json: { url: "https://news.example.test/ro", html: bridge } })).json();
    const note = await (await trove.api("/api/notes", { method: "POST", json: { title: "Read-only test", bodyMarkdown: "text" } })).json();
    const client = await connect(await addClientKey(trove, { access: "read_only" }));
    expect((await call(client, "read_item", { id: item.id })).isError).toBe(false);
    const writes: [string, Record<string, unknown>][] = [
      ["save_url", { url: "https://news.example.test/ro-2", html: bridge }],
      ["update_item", { id: item.id, tags: ["x"] }],
      ["mark_processed", { ids: [item.id] }],
      ["create_highlight", { itemId: item.id, text: "four million" }],
      ["create_note", { title: "no" }],
      ["append_note", { id: note.note.id, bodyMarkdown: "no" }],
      ["update_note", { id: note.note.id, expectedRevision: 1, title: "no" }],
      ["restore_note_revision", { id: note.note.id, revision: 1, expectedRevision: 1 }],
      ["link_note_item", { id: note.note.id, itemId: item.id }],
    ];
    for (const [name, args] of writes) {
      const answer = await call(client, name, args);
      expect({ name, isError: answer.isError, error: answer.body?.error }).toEqual({ name, isError: true, error: "forbidden" });
    }
    expect((await (await trove.api(`/api/notes/${note.note.id}`)).json()).note?.currentRevision ?? 1).toBe(1);
  });

  test("a key scoped to a tag never sees an item outside it, through any tool or resource", async () => {
    const inside = await (await trove.api("/api/ingest", { method: "POST", json: { url: "https://news.example.test/scope-in", html: page("Otters in the harbour", ["Otters were seen in the harbour again this week, the first time in twenty years, said the harbour master."]) } })).json();
    const outside = await (await trove.api("/api/ingest", { method: "POST", json: { url: "https://news.example.test/scope-out", html: page("Otters in the secret lake", ["Otters live in the secret lake as well, but that story is for the other tag only, said the ranger."]) } })).json();
    await trove.api(`/api/items/${inside.id}`, { method: "POST", json: { tags: ["wildlife"] } });
    await trove.api(`/api/items/${outside.id}`, { method: "POST", json: { tags: ["private"] } });
    const key = await addClientKey(trove, { scope: { tagSlugs: ["wildlife"] } });
    for (const via of ["http", "stdio"] as const) {
      const client = await connect(key, via);
      const seen = JSON.stringify([
        await call(client, "list_items", { limit: 100 }),
        await call(client, "feed", { limit: 50 }),
        await call(client, "search", { q: "otters" }),
        await call(client, "poll_changes", { limit: 200 }),
      ]);
      expect(seen).not.toContain(outside.id);
      const read = await call(client, "read_item", { id: outside.id });
      expect({ isError: read.isError, error: read.body?.error }).toEqual({ isError: true, error: "not_found" });
      expect((await call(client, "list_highlights", { itemId: outside.id })).isError).toBe(true);
      const resources = await client.listResources();
      expect(JSON.stringify(resources)).not.toContain(outside.id);
      await expect(client.readResource({ uri: `trove://items/${outside.id}` })).rejects.toThrow();
      await eventually(async () => JSON.stringify(await call(client, "search", { q: "otters" })).includes(inside.id), 20_000);
    }
  });

  test("save_url with a scoped key saves into its scope, and never over an item outside it", async () => {
    const owners = page("The owner's own page", ["The owner saved this page for herself, and nobody else should change it or learn of it."]);
    const outside = await (await trove.api("/api/ingest", { method: "POST", json: { url: "https://news.example.test/owners-page", html: owners } })).json();
    const before = await (await trove.api(`/api/items/${outside.id}`)).json();
    const shelf = (await (await trove.api("/api/collections", { method: "POST", json: { name: "Agent shelf" } })).json()).collection.id;
    const keys = { tag: await addClientKey(trove, { scope: { tagSlugs: ["agent-reading"] } }), collection: await addClientKey(trove, { scope: { collectionId: shelf } }) };
    for (const via of ["http", "stdio"] as const) {
      for (const [kind, key] of Object.entries(keys)) {
        const client = await connect(key, via);
        const copy = page("Written by an agent", ["An agent's copy of the page that must not replace the owner's."]);
        const refused = await call(client, "save_url", { url: "https://news.example.test/owners-page", html: copy });
        expect({ isError: refused.isError, error: refused.body?.error }).toEqual({ isError: true, error: "outside_scope" });
        expect(refused.text).not.toContain(outside.id);
        const saved = await ok(client, "save_url", { url: `https://news.example.test/agent/${via}/${kind}`, html: bridge });
        const read = await ok(client, "read_item", { id: saved.id, view: "lines", lines: "1:1" });
        expect(read.text).toContain("The council met");
      }
    }
    expect(await (await trove.api(`/api/items/${outside.id}`)).json()).toEqual(before);
  });

  test("list_sources answers the safe manifest only: no configuration, tokens or cursors, and no way to ask for them", async () => {
    const feedUrl = "https://feeds.example.invalid/rss.xml?token=s3cret-feed-token";
    const created = await trove.api("/api/sources", { method: "POST", json: { type: "rss", feedUrl, name: "Secret feed", defaultTags: ["feeds"] } });
    expect(created.status).toBe(200);
    // The API holds the secret: the sensitive view shows it (so its absence below means something).
    const sensitive = await (await trove.api("/api/sources?include=sensitive")).text();
    expect(sensitive).toContain("s3cret-feed-token");
    for (const via of ["http", "stdio"] as const) {
      const client = await connect(aliceKey, via);
      const tool = (await client.listTools()).tools.find((t) => t.name === "list_sources")!;
      expect(Object.keys((tool.inputSchema as { properties?: object }).properties ?? {}).sort()).toEqual(["limit", "offset", "type"]);
      const answer = await call(client, "list_sources", { include: "sensitive" } as Record<string, unknown>);
      const text = answer.isError ? "" : answer.text;
      const listed = (await ok(client, "list_sources")).sources;
      expect(listed.map((s: { name: string }) => s.name)).toContain("Secret feed");
      for (const shown of [text, JSON.stringify(listed)]) {
        expect(shown).not.toContain("s3cret-feed-token");
        expect(shown).not.toMatch(/"(config|configuration|settings|cursor|cursors|feedUrl|smartTagRules)"/);
      }
    }
  });

  test("a stale expectedRevision comes back as a tool error carrying revision_conflict and the current revision", async () => {
    const client = await connect(aliceKey);
    const created = await ok(client, "create_note", { title: "Conflict", bodyMarkdown: "one" });
    await ok(client, "append_note", { id: created.note.id, bodyMarkdown: "two" });
    const stale = await call(client, "update_note", { id: created.note.id, expectedRevision: 1, bodyMarkdown: "mine" });
    expect(stale.isError).toBe(true);
    expect(stale.body).toMatchObject({ error: "revision_conflict", status: 409, currentRevision: 2 });
    expect((await ok(client, "read_note", { id: created.note.id, view: "full" })).text).toContain("two");
    // The session goes on after the error.
    expect((await call(client, "read_note", { id: created.note.id })).isError).toBe(false);
  });

  test("a plan's quota comes back as quota_reached; an unknown id as not_found", async () => {
    const client = await connect(bobKey);
    let last: ToolAnswer | null = null;
    for (let i = 0; i < 5; i++) last = await call(client, "save_url", { url: `https://news.example.test/quota-${i}`, html: bridge });
    expect(last!.body).toMatchObject({ error: "quota_reached" });
    const missing = await call(client, "read_item", { id: "01a00000-0000-7000-8000-000000000000" });
    expect(missing.body).toMatchObject({ error: "not_found", status: 404 });
  });
});

describe("bad input", () => {
  test("NUL characters, lone surrogates, huge numbers and another account's ids come back as tool errors; the session goes on", async () => {
    const client = await connect(aliceKey);
    const nul = await call(client, "create_note", { title: "bad\u0000title", bodyMarkdown: "x" });
    expect(nul).toMatchObject({ isError: true, body: { error: "validation_failed" } });
    const surrogate = await call(client, "create_note", { title: "lone \ud800 surrogate", bodyMarkdown: "x" });
    expect(surrogate).toMatchObject({ isError: true, body: { error: "validation_failed" } });
    // Outside the tool's schema: refused before any API call, as a tool error.
    const huge = await call(client, "list_items", { limit: 1e12 });
    expect(huge.isError).toBe(true);
    const badRange = await call(client, "read_note", { id: "x", view: "lines", lines: "9:1" });
    expect(badRange).toMatchObject({ isError: true, body: { error: "validation_failed" } });
    // Alice's item, asked for with bob's key (whose links may be used up by now: he only reads): not found.
    const alices = await (await trove.api("/api/ingest", { method: "POST", json: { url: "https://news.example.test/alices", html: bridge } })).json();
    const bob = await connect(bobKey);
    expect((await call(bob, "read_item", { id: alices.id })).body).toMatchObject({ error: "not_found" });
    expect((await call(bob, "update_item", { id: alices.id, title: "mine now" })).body).toMatchObject({ error: "not_found" });
    await expect(bob.readResource({ uri: `trove://items/${alices.id}` })).rejects.toThrow();
    expect((await call(client, "read_item", { id: alices.id })).isError).toBe(false);
    // An id that tries to walk to another route stays one path segment.
    expect((await call(client, "read_item", { id: "../../api/me" })).isError).toBe(true);
    expect((await call(client, "list_items", { limit: 1 })).isError).toBe(false);
  });
});

describe("bounded answers", () => {
  const longNote = Array.from({ length: 1000 }, (_, i) => `Line ${i + 1}: ${"words ".repeat(20)}`).join("\n");

  test("a huge line range is narrowed to the read limits, and the answer says where to continue", async () => {
    const client = await connect(aliceKey);
    const created = await ok(client, "create_note", { title: "Long", bodyMarkdown: longNote });
    const answer = await call(client, "read_note", { id: created.note.id, view: "lines", lines: "1:100000" });
    expect(answer.isError).toBe(false);
    expect(Buffer.byteLength(answer.text, "utf8")).toBeLessThanOrEqual(32 * 1024);
    expect(answer.body.startLine).toBe(1);
    expect(answer.body.endLine).toBeLessThanOrEqual(200);
    expect(answer.body.more).toBe(`read_note with view=lines lines=${answer.body.endLine + 1}:${answer.body.endLine + 200}`);
    const next = await ok(client, "read_note", { id: created.note.id, view: "lines", lines: `${answer.body.endLine + 1}:${answer.body.endLine + 200}` });
    expect(next.text.startsWith(`Line ${answer.body.endLine + 1}:`)).toBe(true);
  });

  test("a whole document past 32 KB comes cut at a line, with the range to read next", async () => {
    const client = await connect(aliceKey);
    const paragraphs = Array.from({ length: 400 }, (_, i) => `Paragraph ${i + 1} of the long report: ${"the river rises and falls with the seasons, ".repeat(3)}`);
    const saved = await ok(client, "save_url", { url: "https://news.example.test/long-report", html: page("A long report", paragraphs) });
    const answer = await call(client, "read_item", { id: saved.id, view: "full" });
    expect(Buffer.byteLength(answer.text, "utf8")).toBeLessThanOrEqual(32 * 1024);
    expect(answer.body.truncated).toBe(true);
    expect(answer.body.more).toMatch(/^read_item with view=lines lines=\d+:\d+$/);
  });
});

describe("the /mcp endpoint", () => {
  test("needs a key, like the REST API, and answers JSON errors", async () => {
    const res = await fetch(`${trove.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe("unauthorized");
    const bad = await fetch(`${trove.url}/mcp`, { method: "POST", headers: { authorization: "Bearer not-a-key-0000000000", "content-type": "application/json" }, body: "{}" });
    expect(bad.status).toBe(401);
  });

  test("counts once against the rate limit per call, however many API calls its tools make", async () => {
    const client = await connect(aliceKey);
    const remaining = async () => Number(/;r=(\d+)/.exec((await trove.api("/api/me")).headers.get("ratelimit") ?? "")?.[1]);
    const before = await remaining();
    const id = (await ok(client, "list_items", { limit: 1 })).items[0].id;
    await ok(client, "read_item", { id, view: "lines", lines: "1:100000" });
    const after = await remaining();
    // Three requests counted between the two readings: the two /mcp calls and the second /api/me; the API calls
    // the two tools made inside them (two more) are not. The client's one GET /mcp (the event stream it opens in the
    // background after connecting) may land between the readings too, or before them: 3 or 4, never 5 or more.
    expect([3, 4]).toContain(before - after);
  });
});
