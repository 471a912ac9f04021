// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP. The notes'
// search index follows note events (it is never written on the request path), so each test waits for it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bobKey, eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000" });
});
afterAll(() => trove.stop());

async function call(path: string, opts: { method?: string; json?: unknown; key?: string } = {}) {
  const res = await trove.api(path, opts);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as any, text };
}

async function create(json: Record<string, unknown>, key?: string): Promise<string> {
  const r = await call("/api/notes", { method: "POST", json, key });
  if (r.status !== 200) throw new Error(r.text);
  return r.body.note.id;
}

/** The result ids of a search, once the index shows `id` (or, with `absent`, no longer shows it). */
async function found(q: string, id: string, opts: { absent?: boolean; key?: string; extra?: string } = {}): Promise<any> {
  let last: any;
  await eventually(async () => {
    last = await call(`/api/notes/search?q=${encodeURIComponent(q)}${opts.extra ?? ""}`, { key: opts.key });
    const ids = (last.body.results ?? []).map((r: any) => r.id);
    return opts.absent ? !ids.includes(id) : ids.includes(id);
  });
  return last.body;
}

const body = [
  "# Parser notes",
  "",
  "The tokenizer splits input into tokens.",
  "Error recovery resumes at the next statement.",
  "",
  "## Open questions",
  "Should the lexer handle unicode identifiers like café or 東京都?",
  "The recovery strategy needs a benchmark.",
].join("\n");

describe("notes search", () => {
  let id = "";
  beforeAll(async () => {
    id = await create({ title: "Compiler design log", bodyMarkdown: body, tags: ["Parsing"], repository: "github.com/acme/compiler", paths: ["src/parser/"], properties: { description: "how the parser recovers" } });
  });

  test("a line in the middle is found with its line range, revision and score; no bodies", async () => {
    const r = await found("recovery", id);
    const hit = r.results.find((x: any) => x.id === id);
    expect(hit).toMatchObject({ id, title: "Compiler design log", revision: 1, matchedField: "body", matchCount: 2 });
    expect(hit.lineRanges).toEqual([{ startLine: 4, endLine: 4 }, { startLine: 8, endLine: 8 }]);
    expect(hit.score).toBeGreaterThan(0);
    expect(r.mode).toBe("lexical");
    expect(JSON.stringify(r)).not.toContain("tokenizer splits");
  });

  test("phrase, exclusion, prefix, stems, a typo in the title, tags, the description, accents and CJK", async () => {
    await found('"next statement"', id);
    expect((await call(`/api/notes/search?q=${encodeURIComponent('"statement next"')}`)).body.results.map((x: any) => x.id)).not.toContain(id);
    expect((await call(`/api/notes/search?q=${encodeURIComponent("recovery -tokenizer")}`)).body.results.map((x: any) => x.id)).not.toContain(id);
    await found("tokeni", id);
    await found("splitting", id);
    const typo = await found("compilr", id);
    expect(typo.results.find((x: any) => x.id === id).matchedField).toBe("title");
    expect((await found("parsing", id)).results.find((x: any) => x.id === id).matchedField).toBe("tags");
    // "recovers" is in the description (B), which outranks the body's "recovery" (D, and another English stem).
    expect((await found("recovers", id)).results.find((x: any) => x.id === id).matchedField).toBe("description");
    expect((await found("parser", id, { extra: "&limit=5" })).results.find((x: any) => x.id === id).matchedField).toBe("description");
    await found("cafe", id);
    const cjk = await found("東京", id);
    expect(cjk.results.find((x: any) => x.id === id).lineRanges).toEqual([{ startLine: 7, endLine: 7 }]);
  });

  test("writes reach the index: an append is findable, a replace forgets the old text, the revision follows", async () => {
    const nid = await create({ title: "Changing", bodyMarkdown: "first version mentions walrus" });
    await found("walrus", nid);
    await call(`/api/notes/${nid}/append`, { method: "POST", json: { bodyMarkdown: "appended narwhal line" } });
    const appended = await found("narwhal", nid);
    expect(appended.results.find((x: any) => x.id === nid)).toMatchObject({ revision: 2, lineRanges: [{ startLine: 2, endLine: 2 }] });
    await call(`/api/notes/${nid}`, { method: "PATCH", json: { expectedRevision: 2, bodyMarkdown: "now about otters" } });
    await found("walrus", nid, { absent: true });
    await found("otters", nid);
  });

  test("filters: archived notes only when asked; kind, tags and project narrow", async () => {
    const nid = await create({ title: "Archived platypus", kind: "journal" });
    await found("platypus", nid);
    await call(`/api/notes/${nid}/archive`, { method: "POST", json: { expectedRevision: 1 } });
    await found("platypus", nid, { absent: true });
    await found("platypus", nid, { extra: "&archived=true" });
    await found("platypus", nid, { extra: "&archived=any&kind=journal" });
    expect((await call("/api/notes/search?q=platypus&archived=any&kind=other")).body.results).toEqual([]);
  });

  test("another account never sees them; bad q never answers 5xx; semantic is 503 until embeddings land", async () => {
    const mine = await create({ title: "Bob's private okapi" }, bobKey);
    await found("okapi", mine, { key: bobKey });
    expect((await call("/api/notes/search?q=okapi")).body.results.map((x: any) => x.id)).not.toContain(mine);
    for (const q of ["   ", "'", ":*", "a & b | !c", "((", "%_\\", "🦀", "x".repeat(500), '"unclosed', "-", "or"]) {
      const r = await call(`/api/notes/search?q=${encodeURIComponent(q)}`);
      expect({ q: q.slice(0, 20), ok: r.status === 200 || r.status === 400 }).toEqual({ q: q.slice(0, 20), ok: true });
    }
    expect((await call("/api/notes/search")).status).toBe(400);
    expect((await call(`/api/notes/search?q=${"y".repeat(501)}`)).status).toBe(400);
    const semantic = await call("/api/notes/search?q=parser&mode=semantic");
    expect(semantic.status).toBe(503);
    expect(semantic.body.error).toBe("semantic_unavailable");
  });
});
