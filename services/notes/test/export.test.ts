// GET /api/notes/export through the gateway: the ZIP is unpacked with fflate and every file's frontmatter parsed
// with yaml, then compared with what GET /api/notes/:id says of the same note. Real: every service in-process
// (PGlite + the in-process bus with file blobs, or PostgreSQL + NATS with the NATS Object Store).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { unzipSync } from "fflate";
import { parse } from "yaml";
import { addClientKey, aliceKey, bobKey, eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" });
});
afterAll(async () => {
  await trove.stop();
});

async function api(path: string, init: Parameters<TestTrove["api"]>[1] = {}) {
  const res = await trove.api(path, init);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

const create = async (json: Record<string, unknown>, key = aliceKey): Promise<string> => (await api("/api/notes", { method: "POST", json, key })).note.id;

/** The export as {file name: text}, after checking the reply's headers. */
async function exportOf(key = aliceKey): Promise<Map<string, string>> {
  const res = await trove.api("/api/notes/export", { key });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/zip");
  expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="trove-notes-\d{4}-\d{2}-\d{2}\.zip"$/);
  const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
  const decoder = new TextDecoder("utf-8", { fatal: true });
  return new Map(Object.entries(files).map(([name, bytes]) => [name, decoder.decode(bytes)]));
}

/** Frontmatter (parsed) and body of one exported file. */
function split(text: string): { meta: Record<string, any>; body: string } {
  expect(text.startsWith("---\n")).toBe(true);
  const end = text.indexOf("\n---\n");
  expect(end).toBeGreaterThan(0);
  expect(text.slice(end + 5, end + 6)).toBe("\n");
  return { meta: parse(text.slice(4, end + 1)), body: text.slice(end + 6) };
}

/** Alice's account id, for fixtures written in SQL. */
const aliceAccount = async (): Promise<string> =>
  (await trove.db.selectFrom("gateway.accounts").select("id").where("email", "=", "alice@example.test").executeTakeFirstOrThrow()).id;

const iso = (s: number) => new Date(s * 1000).toISOString();
const exportBlobs = async () => (await trove.blobs.list()).filter((k) => k.startsWith("notes-export-"));

/** A file name a careful unzip tool writes where it was asked to: one relative path, no tricks. */
function expectSafeName(name: string, id: string, archived: boolean) {
  expect(name.endsWith(`-${id}.md`)).toBe(true);
  const parts = name.split("/");
  expect(parts.length).toBe(archived ? 2 : 1);
  if (archived) expect(parts[0]).toBe("archived");
  const file = parts.at(-1)!;
  expect(file.startsWith(".")).toBe(false);
  expect(file).not.toMatch(/[\\:*?"<>|\u0000-\u001f\u007f]/u);
  expect(new TextEncoder().encode(file).length).toBeLessThanOrEqual(200);
  expect(name.normalize("NFC")).toBe(name);
}

describe("GET /api/notes/export", () => {
  test("every note, current and archived, once, with its frontmatter and its body exactly; nothing of bob's; the blob goes once sent", async () => {
    const projectId = "prj-export-test";
    await trove.db
      .insertInto("notes.projects")
      .values({ id: projectId, account_id: await aliceAccount(), name: "Export", created_at: 1, updated_at: 1 })
      .execute();
    const longTitle = `${"Ein sehr langer Titel über Käse und 東京 ".repeat(40)}`.slice(0, 1000);
    const specs: { title: string; body: string; extra?: Record<string, unknown>; archive?: boolean; append?: string }[] = [
      { title: "Plain notes", body: "# Plain\n\nSome text.\n" },
      { title: "../../etc/passwd", body: "not a password file" },
      { title: longTitle, body: "long title\n", archive: true },
      { title: "🎉🚀🔥", body: "only emoji in the title" },
      { title: "Café naïve Ünïcödé — 東京の会議メモ 🧠", body: "Ünïcödé body: 東京, Ελληνικά, עברית, emoji 🧑‍💻 and \u0301 a lone combining mark\n\ttabs\r\nCRLF line\n" },
      {
        title: "Looks like frontmatter",
        // A body that itself holds frontmatter fences, leading blank lines and no final line break.
        body: "\n\n---\ntitle: fake\n---\n\n---\nend without newline",
        extra: {
          kind: "decision",
          state: "active",
          tags: ["Reading List", "export"],
          project: projectId,
          repository: "https://github.com/example/trove.git",
          paths: ["src/api/", "docs/intro.md"],
          properties: { description: "a: colon, # hash, \"quotes\"\n---\nand a fence", nested: { n: 1, list: [true, null, "x"] }, "key with spaces": "v" },
        },
        archive: true,
      },
      { title: "Appended", body: "first\n", append: "second ✓\n" },
      { title: "Empty body", body: "" },
    ];
    const ids: string[] = [];
    for (const s of specs) {
      const id = await create({ title: s.title, bodyMarkdown: s.body, ...s.extra });
      if (s.append) await api(`/api/notes/${id}/append`, { method: "POST", json: { bodyMarkdown: s.append } });
      if (s.archive) {
        const { note } = await api(`/api/notes/${id}`);
        await api(`/api/notes/${id}/archive`, { method: "POST", json: { expectedRevision: note.currentRevision } });
      }
      ids.push(id);
    }
    const bobs = await create({ title: "Bob's private note", bodyMarkdown: "bob only" }, bobKey);

    const files = await exportOf();
    expect(files.size).toBe(specs.length);
    const byId = new Map<string, { name: string; text: string }>();
    for (const [name, text] of files) {
      const id = /-([0-9a-f-]{36})\.md$/.exec(name)?.[1];
      expect(id).toBeDefined();
      expect(byId.has(id!)).toBe(false);
      byId.set(id!, { name, text });
    }
    expect(byId.has(bobs)).toBe(false);
    expect([...files.values()].some((t) => t.includes("bob only"))).toBe(false);

    for (const id of ids) {
      const { note } = await api(`/api/notes/${id}`);
      const file = byId.get(id)!;
      expect(file).toBeDefined();
      expectSafeName(file.name, id, note.archived);
      const { meta, body } = split(file.text);
      expect(body).toBe(note.bodyMarkdown);
      const expected: Record<string, unknown> = {
        id,
        title: note.title,
        revision: note.currentRevision,
        created: iso(note.createdAt),
        updated: iso(note.updatedAt),
      };
      if (note.archived) Object.assign(expected, { archived: true, archivedAt: iso(note.archivedAt) });
      for (const k of ["kind", "state", "project", "repository"] as const) if (note[k] !== null) expected[k] = note[k];
      if (note.paths.length > 0) expected.paths = note.paths;
      if (note.tags.length > 0) expected.tags = note.tags;
      if (Object.keys(note.properties).length > 0) expected.properties = note.properties;
      expect(meta).toEqual(expected);
    }
    // Spot checks of what the comparison above relies on.
    const rich = split(byId.get(ids[5]!)!.text).meta;
    expect(rich).toMatchObject({ archived: true, kind: "decision", state: "active", project: projectId, tags: ["reading-list", "export"] });
    expect(rich.properties.nested).toEqual({ n: 1, list: [true, null, "x"] });
    expect(split(byId.get(ids[6]!)!.text)).toMatchObject({ meta: { revision: 2 }, body: "first\nsecond ✓\n" });
    expect(byId.get(ids[1]!)!.name).toBe(`etc-passwd-${ids[1]}.md`);
    expect(byId.get(ids[3]!)!.name).toBe(`note-${ids[3]}.md`);
    expect(byId.get(ids[4]!)!.name).toBe(`café-naïve-ünïcödé-東京の会議メモ-${ids[4]}.md`);
    expect(byId.get(ids[2]!)!.name.startsWith("archived/ein-sehr-langer-titel-über-käse-und-東京")).toBe(true);

    // Sent once: the produced ZIP does not stay behind.
    await eventually(async () => (await exportBlobs()).length === 0);

    // Bob's export holds his note alone.
    const bobFiles = await exportOf(bobKey);
    expect([...bobFiles.keys()]).toEqual([`bob-s-private-note-${bobs}.md`]);
    await eventually(async () => (await exportBlobs()).length === 0);
  });

  test("needs a key with notes.read; a read-only client key may export", async () => {
    expect((await trove.api("/api/notes/export", { key: null })).status).toBe(401);
    expect((await trove.api("/api/notes/export", { key: "not-a-key-at-all-000000" })).status).toBe(401);
    const readOnly = await addClientKey(trove, { access: "read_only" });
    const files = await exportOf(readOnly);
    expect(files.size).toBeGreaterThan(0);
  });

  test("an export nobody fetched for over an hour is removed at the next export; a recent one is not", async () => {
    const stale = `notes-export-${Date.now() - 2 * 60 * 60_000}-stale`;
    const recent = `notes-export-${Date.now() - 60_000}-recent`;
    await trove.blobs.put(stale, new Uint8Array([1, 2, 3]));
    await trove.blobs.put(recent, new Uint8Array([4, 5, 6]));
    await exportOf();
    // The stale blob goes with the sweep; the fetched export's own blob goes once its last byte is read (after the
    // response, so it is waited for too); the recent one stays.
    await eventually(async () => JSON.stringify(await exportBlobs()) === JSON.stringify([recent]));
    await trove.blobs.delete(recent);
  });

  test("a few thousand notes: each once with its body; a download the client abandons leaves no blob", async () => {
    const account = await aliceAccount();
    const n = 3000;
    const paragraph = (i: number) => `## Section ${i}\n\n${`Paragraph ${i} about reading, writing and 東京. `.repeat(30)}\n`;
    // Inserted in SQL: the export reads rows, and thousands of POSTs would only measure note creation.
    for (let from = 0; from < n; from += 500) {
      const rows = [];
      for (let i = from; i < Math.min(n, from + 500); i++) {
        const body = `# Bulk ${i}\n\n${paragraph(i)}${paragraph(i + 1)}`;
        rows.push({
          id: `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`,
          account_id: account,
          title: `Bulk note ${i}`,
          body,
          current_revision: 1,
          bytes: Buffer.byteLength(body),
          line_count: body.split("\n").length,
          snapshot_revision: 1,
          snapshot_bytes: Buffer.byteLength(body),
          archived_at: i % 10 === 0 ? 1_700_000_000 : null,
          created_at: 1_700_000_000,
          updated_at: 1_700_000_000 + i,
        });
      }
      await trove.db.insertInto("notes.notes").values(rows).execute();
    }
    const { count } = await api("/api/notes?archived=any&limit=1");
    const files = await exportOf();
    expect(files.size).toBe(count);
    for (let i = 0; i < n; i++) {
      const id = `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`;
      const name = `${i % 10 === 0 ? "archived/" : ""}bulk-note-${i}-${id}.md`;
      const text = files.get(name);
      expect(text).toBeDefined();
      const { meta, body } = split(text!);
      expect(meta.id).toBe(id);
      expect(body).toBe(`# Bulk ${i}\n\n${paragraph(i)}${paragraph(i + 1)}`);
    }
    await eventually(async () => (await exportBlobs()).length === 0);

    // Headers read, a little of the body, then the client goes away.
    const abort = new AbortController();
    const res = await trove.api("/api/notes/export", { signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    await reader.cancel().catch(() => {});
    await eventually(async () => (await exportBlobs()).length === 0);
  });
});
