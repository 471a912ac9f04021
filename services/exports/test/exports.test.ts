// Export jobs through the gateway (PGlite + the in-process bus, or PostgreSQL + NATS): the three formats read back
// with real parsers, filters, notes and content left out on request, scoped and read-only keys, other accounts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse as parseCsv } from "csv-parse/sync";
import { unzipSync, strFromU8 } from "fflate";
import { parse as parseYaml } from "yaml";
import { addClientKey, bobKey, startTrove, type TestTrove } from "@trove/testing";
import { exportFile, seedLibrary, type Library } from "./helpers.ts";

let trove: TestTrove;
let lib: Library;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000" });
  lib = await seedLibrary(trove);
});
afterAll(() => trove.stop());

const jsonExport = async (body: Record<string, unknown>, key?: string) => {
  const { job, response, bytes } = await exportFile(trove, { format: "json", ...body }, key);
  return { job, response, doc: JSON.parse(strFromU8(bytes)) };
};

describe("JSON export", () => {
  test("every item, archived included, with tags, collections, highlights, the note and the content", async () => {
    const { job, response, doc } = await jsonExport({});
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="trove-export-\d{4}-\d{2}-\d{2}-[\w-]+\.json"$/);
    expect(job).toMatchObject({ status: "completed", format: "json", itemCount: 4, error: null });
    expect(job.sizeBytes).toBe(Number(response.headers.get("content-length") ?? job.sizeBytes));
    expect(job.expiresAt).toBeGreaterThan(job.completedAt);
    expect(doc.items.map((r: any) => r.id).sort()).toEqual(Object.values(lib.ids).sort());
    const rich = doc.items.find((r: any) => r.id === lib.ids.rich);
    const item = await (await trove.api(`/api/items/${lib.ids.rich}`)).json();
    expect(rich).toMatchObject({
      url: "https://library.example.test/rich",
      title: item.item?.title ?? item.title,
      status: "stashed",
      tags: ["Reading", "日本語"],
      collections: ["Deep Reads"],
      note: "My own note, with a line\nand another.",
    });
    expect(rich.createdAt).toBeNumber();
    expect(rich.contentMarkdown).toContain("Parsers turn text");
    expect(rich.highlights.map((h: any) => [h.text, h.note])).toEqual([
      ["Parsers turn text", "why Parsers turn text"],
      ["structure", "why structure"],
    ]);
    expect(rich.highlights[0].startOffset).toBeNumber();
    expect(doc.items.find((r: any) => r.id === lib.ids.archived).status).toBe("archived");
  });

  test("includeNotes: false leaves the notes out; includeContent: false the Markdown", async () => {
    const { doc } = await jsonExport({ includeNotes: false, includeContent: false });
    expect(doc.items).toHaveLength(4);
    for (const r of doc.items) {
      expect(r).not.toHaveProperty("note");
      expect(r).not.toHaveProperty("contentMarkdown");
    }
    expect(doc.items.find((r: any) => r.id === lib.ids.rich).highlights).toHaveLength(2);
  });

  test("limited by tags, collection and status", async () => {
    const ids = (d: any) => d.items.map((r: any) => r.id).sort();
    expect(ids((await jsonExport({ tags: ["reading"] })).doc)).toEqual([lib.ids.rich, lib.ids.formula].sort());
    expect(ids((await jsonExport({ collection: "Deep Reads" })).doc)).toEqual([lib.ids.rich]);
    expect(ids((await jsonExport({ status: ["archived"] })).doc)).toEqual([lib.ids.archived]);
    expect(ids((await jsonExport({ status: ["stashed", "flagged"], tags: ["Reading"] })).doc)).toEqual([lib.ids.rich, lib.ids.formula].sort());
  });
});

describe("CSV export", () => {
  test("RFC 4180 with a header row; cells that a spreadsheet would run as formulas are neutralised", async () => {
    const { response, bytes } = await exportFile(trove, { format: "csv" });
    expect(response.headers.get("content-type")).toStartWith("text/csv");
    expect(response.headers.get("content-disposition")).toEndWith('.csv"');
    const text = strFromU8(bytes);
    expect(text).toContain("\r\n");
    const rows: Record<string, string>[] = parseCsv(text, { columns: true, bom: true });
    expect(rows).toHaveLength(4);
    const formula = rows.find((r) => r.id === lib.ids.formula)!;
    expect(formula.title).toBe("'=HYPERLINK(\"http://evil.test\",\"click\")");
    const rich = rows.find((r) => r.id === lib.ids.rich)!;
    expect(rich.note).toBe("My own note, with a line\nand another.");
    expect(rich.tags!.split("|")).toEqual(["Reading", "日本語"]);
    for (const row of rows) for (const cell of Object.values(row)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });
});

describe("Markdown ZIP export", () => {
  test("one Markdown file per item with its frontmatter; names unique and safe", async () => {
    const { response, bytes } = await exportFile(trove, { format: "markdown_zip" });
    expect(response.headers.get("content-type")).toBe("application/zip");
    const files = unzipSync(bytes);
    const items = Object.keys(files).filter((n) => n.endsWith(".md") && n !== "README.md");
    expect(items).toHaveLength(4);
    expect(new Set(items.map((n) => n.toLowerCase())).size).toBe(4);
    for (const name of items) {
      expect(name).not.toMatch(/(^|\/)\.|\\|\.\.|^\//);
      expect(Buffer.byteLength(name.split("/").at(-1)!)).toBeLessThanOrEqual(255);
    }
    const archived = items.find((n) => n.includes(lib.ids.archived))!;
    expect(archived).toStartWith("archived/");
    const rich = strFromU8(files[items.find((n) => n.includes(lib.ids.rich))!]!);
    const front = parseYaml(rich.split("\n---\n")[0]!.replace(/^---\n/, ""));
    expect(front).toMatchObject({ id: lib.ids.rich, url: "https://library.example.test/rich", tags: ["Reading", "日本語"], collections: ["Deep Reads"], status: "stashed" });
    expect(new Date(front.created).getTime()).toBeGreaterThan(0);
    expect(rich).toContain("Parsers turn text");
    expect(rich).toContain("My own note, with a line\nand another.");
  });
});

describe("keys and accounts", () => {
  test("a scoped key exports only its scope; a read-only key may export", async () => {
    const scoped = await addClientKey(trove, { scope: { collectionId: lib.collectionId } });
    const own = await jsonExport({}, scoped);
    expect(own.doc.items.map((r: any) => r.id)).toEqual([lib.ids.rich]);
    // It sees only the jobs it started: another key's export may hold the whole library.
    const full = (await jsonExport({})).job;
    expect((await (await trove.api("/api/exports", { key: scoped })).json()).exports.map((j: any) => j.id)).toEqual([own.job.id]);
    for (const path of [`/api/exports/${full.id}`, `/api/exports/${full.id}/download`]) expect((await trove.api(path, { key: scoped })).status).toBe(404);
    const readOnly = await addClientKey(trove, { access: "read_only" });
    expect((await jsonExport({}, readOnly)).doc.items).toHaveLength(4);
  });

  test("another account's job answers 404 on read and download, and is not listed", async () => {
    const { job } = await jsonExport({});
    for (const path of [`/api/exports/${job.id}`, `/api/exports/${job.id}/download`]) {
      const res = await trove.api(path, { key: bobKey });
      expect(res.status).toBe(404);
      expect((await res.json()).error).toBe("not_found");
    }
    expect((await (await trove.api("/api/exports", { key: bobKey })).json()).exports).toEqual([]);
    const mine = await (await trove.api("/api/exports?limit=2")).json();
    expect(mine.exports[0].id).toBe(job.id);
    expect(mine.count).toBeGreaterThan(2);
    expect(mine.exports[0].createdAt).toBeGreaterThanOrEqual(mine.exports[1].createdAt);
  });

  test("bad requests answer 400 naming the field", async () => {
    for (const [body, field] of [
      [{ format: "pdf" }, "format"],
      [{ format: "json", tags: ["no such tag"] }, "tags"],
      [{ format: "json", collection: "no such collection" }, "collection"],
      [{ format: "json", status: ["deleted"] }, "status"],
    ] as const) {
      const res = await trove.api("/api/exports", { method: "POST", json: body });
      expect(res.status).toBe(400);
      const err = await res.json();
      expect(err.error).toBe("validation_failed");
      expect(Object.keys(err.fields ?? {}).join(",")).toContain(field);
    }
  });

  test("an expired export's file answers 410", async () => {
    const { job } = await jsonExport({});
    await trove.db.updateTable("exports.jobs").set({ expires_at: 1 }).where("id", "=", job.id).execute();
    const res = await trove.api(`/api/exports/${job.id}/download`);
    expect(res.status).toBe(410);
    expect((await res.json()).error).toBe("export_expired");
  });
});

describe("CSV formulas behind whitespace", () => {
  test("a formula after leading spaces or line ends is neutralised like one at the start", async () => {
    const saved = await trove.api("/api/ingest", { method: "POST", json: { url: "https://library.example.test/spaced-formula", html: "<p>Spaced</p>" } });
    const id = (await saved.json()).id as string;
    const hostile = { title: "  =HYPERLINK(\"http://evil.test\",\"click\")", notes: "\n=cmd|' /C calc'!A0", tags: ["Spaced formulas"] };
    const updated = await trove.api(`/api/items/${id}`, { method: "POST", json: hostile });
    expect(updated.status).toBe(200);
    const { bytes } = await exportFile(trove, { format: "csv", tags: ["Spaced formulas"] });
    const rows: Record<string, string>[] = parseCsv(strFromU8(bytes), { columns: true, bom: true });
    expect(rows.map((r) => r.id)).toEqual([id]);
    const row = rows[0]!;
    // Each cell as the item holds it, behind a quote where a spreadsheet would have run it.
    expect(row.title).toBe("'  =HYPERLINK(\"http://evil.test\",\"click\")");
    expect(row.note).toBe("'\n=cmd|' /C calc'!A0");
    for (const cell of Object.values(row)) expect(cell).not.toMatch(/^\s*[=+\-@]/);
  });
});
