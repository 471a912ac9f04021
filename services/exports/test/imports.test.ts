// Import jobs through the gateway (PGlite + the in-process bus, or PostgreSQL + NATS): files as other services
// write them, uploaded raw or as base64 JSON; what each keeps (original times, tags, folders, state, notes,
// highlights, content); the background fetch of entries without content from a local page server; the plan's
// limit; bad files; other accounts and keys.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { addClientKey, bobKey, eventually, startPageServer, startTrove, type PageServer, type TestTrove } from "@trove/testing";
import { repeatZip } from "@trove/portability/import/test-helpers.ts";
import { waitForJob } from "./helpers.ts";

const carolKey = "test-key-carol-0123456789";
let trove: TestTrove;
let pages: PageServer;
beforeAll(async () => {
  pages = startPageServer();
  trove = await startTrove({
    TROVE_RATE_LIMIT: "1000000",
    TROVE_IMPORT_HOST_GAP_MS: "10",
    TROVE_JOBS_TICK_MS: "100",
    TROVE_SEED_ACCOUNTS: JSON.stringify([
      { email: "alice@example.test", apiKey: "test-key-alice-0123456789" },
      { email: "bob@example.test", apiKey: bobKey, plan: "free", linkLimit: 3, limitScope: "billing_cycle" },
      { email: "carol@example.test", apiKey: carolKey },
    ]),
  });
});
afterAll(async () => {
  await trove.stop();
  pages.stop();
});

const upload = (bytes: Uint8Array | string, opts: { format?: string; contentType?: string; key?: string; fileName?: string } = {}) => {
  const query = new URLSearchParams({ ...(opts.format ? { format: opts.format } : {}), ...(opts.fileName ? { fileName: opts.fileName } : {}) });
  return trove.api(`/api/imports${query.size > 0 ? `?${query}` : ""}`, {
    method: "POST",
    body: bytes,
    headers: { "content-type": opts.contentType ?? "application/octet-stream" },
    key: opts.key,
  });
};

const importFile = async (bytes: Uint8Array | string, opts: Parameters<typeof upload>[1] = {}) => {
  const res = await upload(bytes, opts);
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  const job = await waitForJob(trove, "imports", body.import.id, opts.key);
  const detail = await (await trove.api(`/api/imports/${job.id}`, { key: opts.key })).json();
  return { job, failures: detail.failures as { index: number; url: string | null; reason: string }[] };
};

const itemsOf = async (key?: string) => {
  const res = await trove.api("/api/items?status=stashed,flagged,archived&limit=100", { key });
  return (await res.json()).items as any[];
};
const byUrl = async (url: string, key?: string) => (await itemsOf(key)).find((i) => i.url === url);
const fromSource = async (source: string, key?: string) =>
  (await (await trove.api(`/api/items?status=stashed,flagged,archived&limit=100&source=${encodeURIComponent(source)}`, { key })).json()).items as any[];

describe("Netscape bookmarks", () => {
  test("folders become collections, tags and dates are kept, bad entries are reported, pages are fetched politely", async () => {
    const base = pages.url;
    const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
  <DT><H3 ADD_DATE="1600000000">Reading &amp; Research</H3>
  <DL><p>
    <DT><A HREF="${base}/article" ADD_DATE="1500000000" TAGS="parsing,Best of">Parsing, &quot;quoted&quot; — 日本語</A>
    <DD>Read this again
    <DT><H3>Nested</H3>
    <DL><p>
      <DT><A HREF="${base}/notes.txt" ADD_DATE="1500000100">Notes file</A>
    </DL><p>
  </DL><p>
  <DT><A HREF="${base}/missing" ADD_DATE="1500000200">Gone page</A>
  <DT><A HREF="javascript:alert(1)">Bookmarklet</A>
  <DT><A HREF="${base}/article" ADD_DATE="1500000300">Duplicate of the first</A>
</DL><p>
`;
    const { job, failures } = await importFile(file, { contentType: "text/html", fileName: "bookmarks.html" });
    expect(job).toMatchObject({ status: "completed", format: "netscape_html", fileName: "bookmarks.html", entries: 5, created: 3, alreadyPresent: 1, failed: 1, notImported: 0, error: null });
    expect(failures).toHaveLength(1);
    expect(failures[0]!.reason).toContain("javascript");
    const article = await byUrl(`${base}/article`);
    expect(article).toMatchObject({ createdAt: 1500000000, notes: "Read this again" });
    expect(article.tags.sort()).toEqual(["Best of", "parsing"]);
    expect(article.collectionName).toMatch(/Reading & Research/);
    // Pages fetched in the background, one at a time: the missing one fails, the job says so.
    let done: any;
    await eventually(async () => {
      done = (await (await trove.api(`/api/imports/${job.id}`)).json()).import;
      return done.fetch.pending === 0;
    }, 30_000);
    expect(done.fetch).toEqual({ pending: 0, fetched: 2, failed: 1 });
    const fetched = await (await trove.api(`/api/items/${article.id}`)).json();
    expect((fetched.item ?? fetched).contentAvailable).toBe(true);
    expect((await byUrl(`${base}/missing`)).contentExtractError).toContain("404");
  });
});

describe("files of other services", () => {
  test("Pocket CSV: archive state, tags and saved time", async () => {
    const csv = 'title,url,time_added,tags,status\r\n"Comma, ""quoted"" title",https://pocket.example.test/a,1600000000,reading|later,archive\r\nÜnïcode,https://pocket.example.test/b,1600000100,,unread\r\n';
    const { job } = await importFile(csv, { contentType: "text/csv", key: carolKey });
    expect(job).toMatchObject({ status: "completed", format: "pocket_csv", created: 2, failed: 0 });
    expect(await trove.blobs.list()).not.toContain(`import-${job.id}`);
    expect(await byUrl("https://pocket.example.test/a", carolKey)).toMatchObject({ title: 'Comma, "quoted" title', status: "archived", createdAt: 1600000000 });
    expect((await byUrl("https://pocket.example.test/a", carolKey)).tags.sort()).toEqual(["later", "reading"]);
  });

  test("Omnivore ZIP: content and highlights come from the file, nothing is fetched", async () => {
    const metadata = [
      { id: "1", slug: "omni-one", title: "Omnivore One", url: "https://omnivore.example.test/one", state: "Archived", labels: ["Saved", "日本"], savedAt: "2023-05-01T10:00:00.000Z" },
      { id: "2", slug: "omni-two", title: "Omnivore Two", url: "https://omnivore.example.test/two", state: "Succeeded", labels: [], savedAt: "2023-06-01T10:00:00.000Z" },
    ];
    const zip = zipSync({
      "metadata_0_to_2.json": strToU8(JSON.stringify(metadata)),
      "content/omni-one.html": strToU8("<html><body><article><h1>Omnivore One</h1><p>The first paragraph of a saved article, long enough to be kept as content by any extractor.</p><p>A second paragraph with the highlighted sentence in it.</p></article></body></html>"),
      "highlights/omni-one.md": strToU8("> the highlighted sentence\n\nMy thought on it\n"),
    });
    const { job } = await importFile(zip, { contentType: "application/zip", key: carolKey });
    expect(job).toMatchObject({ status: "completed", format: "omnivore_zip", created: 2, failed: 0 });
    const one = await byUrl("https://omnivore.example.test/one", carolKey);
    expect(one).toMatchObject({ title: "Omnivore One", status: "archived", createdAt: Date.parse("2023-05-01T10:00:00Z") / 1000, contentAvailable: true });
    expect(one.tags.sort()).toEqual(["Saved", "日本"].sort());
    const highlights = (await (await trove.api(`/api/items/${one.id}/highlights`, { key: carolKey })).json()).highlights;
    expect(highlights.map((h: any) => [h.text, h.note])).toEqual([["the highlighted sentence", "My thought on it"]]);
    expect(highlights[0].startOffset).toBeNumber();
    // Only the entry without content waits for a fetch.
    expect(job.fetch.pending + job.fetch.fetched + job.fetch.failed).toBe(1);
  });

  test("Instapaper CSV: folders as state or collections, selections as highlights", async () => {
    const csv = [
      "URL,Title,Selection,Folder,Timestamp,Tags",
      'https://insta.example.test/a,"Insta, A",a chosen sentence,Archive,1600000000,"[""x"",""y""]"',
      "https://insta.example.test/b,Insta B,,Starred,1600000100,",
      "https://insta.example.test/c,Insta C,,Research,1600000200,",
    ].join("\r\n");
    const { job } = await importFile(csv, { contentType: "text/csv", key: carolKey });
    expect(job).toMatchObject({ status: "completed", format: "instapaper_csv", created: 3, failed: 0 });
    const a = await byUrl("https://insta.example.test/a", carolKey);
    expect(a).toMatchObject({ title: "Insta, A", status: "archived", createdAt: 1600000000 });
    expect(a.tags.sort()).toEqual(["x", "y"]);
    const highlights = (await (await trove.api(`/api/items/${a.id}/highlights`, { key: carolKey })).json()).highlights;
    expect(highlights.map((h: any) => h.text)).toEqual(["a chosen sentence"]);
    expect((await byUrl("https://insta.example.test/b", carolKey)).status).toBe("flagged");
    expect((await byUrl("https://insta.example.test/c", carolKey)).collectionName).toBe("Research");
  });

  test("Readwise Reader CSV: locations as state, document tags, saved dates", async () => {
    const csv = [
      "Title,URL,Document tags,Saved date,Reading progress,Location,Seen",
      "Read A,https://readwise.example.test/a,\"['alpha', 'beta']\",2024-05-01 10:11:12+00:00,0.5,archive,True",
      "Read B,https://readwise.example.test/b,,2024-05-02 10:11:12+00:00,0,shortlist,False",
    ].join("\r\n");
    const { job } = await importFile(csv, { contentType: "text/csv", key: carolKey });
    expect(job).toMatchObject({ status: "completed", format: "readwise_csv", created: 2 });
    const a = await byUrl("https://readwise.example.test/a", carolKey);
    expect(a).toMatchObject({ status: "archived", createdAt: Date.parse("2024-05-01T10:11:12Z") / 1000 });
    expect(a.tags.sort()).toEqual(["alpha", "beta"]);
    expect((await byUrl("https://readwise.example.test/b", carolKey)).status).toBe("flagged");
  });

  test("wallabag JSON: archived and starred, annotations as highlights with notes, content kept", async () => {
    const file = JSON.stringify([
      {
        is_archived: 1,
        is_starred: 1,
        tags: ["wb"],
        title: "Wallabag A",
        url: "https://wallabag.example.test/a",
        content: "<p>Wallabag content paragraph that is long enough to be real content for an article body.</p><p>Another paragraph with quoted words.</p>",
        created_at: "2022-01-02T03:04:05+01:00",
        annotations: [{ text: "my note", quote: "quoted words", created_at: "2022-01-03T00:00:00+00:00", ranges: [] }],
      },
    ]);
    const { job } = await importFile(file, { contentType: "application/json", key: carolKey });
    expect(job).toMatchObject({ status: "completed", format: "wallabag_json", created: 1, failed: 0 });
    expect(job.fetch).toEqual({ pending: 0, fetched: 0, failed: 0 });
    const a = await byUrl("https://wallabag.example.test/a", carolKey);
    expect(a).toMatchObject({ status: "archived", createdAt: Date.parse("2022-01-02T02:04:05Z") / 1000, contentAvailable: true });
    expect(a.tags.sort()).toEqual(["favorite", "wb"]);
    const highlights = (await (await trove.api(`/api/items/${a.id}/highlights`, { key: carolKey })).json()).highlights;
    expect(highlights.map((h: any) => [h.text, h.note])).toEqual([["quoted words", "my note"]]);
  });

  test("Karakeep JSON: links with notes and favourites; text bookmarks reported as not importable", async () => {
    const file = JSON.stringify({
      bookmarks: [
        { createdAt: 1650000000, title: "Karakeep A", tags: ["kk"], content: { type: "link", url: "https://karakeep.example.test/a" }, note: "kk note", archived: false, favourited: true },
        { createdAt: 1650000100, title: "A text note", tags: [], content: { type: "text", text: "just text" }, note: null, archived: false, favourited: false },
      ],
    });
    const { job, failures } = await importFile(file, { contentType: "application/json", key: carolKey });
    expect(job).toMatchObject({ status: "completed", format: "karakeep_json", created: 1, failed: 1 });
    expect(failures[0]!.reason).toMatch(/text/);
    expect(await byUrl("https://karakeep.example.test/a", carolKey)).toMatchObject({ status: "flagged", notes: "kk note", createdAt: 1650000000, tags: ["kk"] });
  });

  test("an entry read with a part missing is imported, and its problem listed without counting it failed", async () => {
    const md = [
      "---",
      "id: old-1",
      "url: https://partial.example.test/a",
      "title: Partly readable",
      "status: stashed",
      "tags: [kept]",
      "collections: []",
      "created: 2021-03-04T05:06:07.000Z",
      "updated: 2021-03-04T05:06:07.000Z",
      "---",
      "",
      "<!-- trove:content -->",
      "Some saved text of the page, with a paragraph long enough to be content.",
      "<!-- /trove:content -->",
      "",
      "## Highlights",
      "",
      "<!-- trove:highlights -->",
      "```json",
      '[{"text": "cut',
      "```",
      "<!-- /trove:highlights -->",
      "",
    ].join("\n");
    const { job, failures } = await importFile(zipSync({ "partly-readable-old-1.md": strToU8(md) }), { key: carolKey });
    expect(job).toMatchObject({ status: "completed", format: "trove_markdown_zip", entries: 1, created: 1, failed: 0 });
    expect(failures).toHaveLength(1);
    expect(failures[0]!.reason).toContain("highlights");
    expect(await byUrl("https://partial.example.test/a", carolKey)).toMatchObject({ title: "Partly readable", tags: ["kept"], createdAt: Date.parse("2021-03-04T05:06:07Z") / 1000 });
  });

  test("the same file imported twice at once saves each URL once", async () => {
    const csv = "title,url,time_added,tags,status\r\n" + Array.from({ length: 30 }, (_, i) => `T${i},https://twice.example.test/${i},1600000000,,unread`).join("\r\n");
    const [a, b] = await Promise.all([importFile(csv, { key: carolKey, format: "pocket_csv" }), importFile(csv, { key: carolKey, format: "pocket_csv" })]);
    expect(a.job.created + b.job.created).toBe(30);
    expect(a.job.alreadyPresent + b.job.alreadyPresent).toBe(30);
    const twice = (await itemsOf(carolKey)).filter((i) => i.url.startsWith("https://twice.example.test/"));
    expect(twice).toHaveLength(30);
  });
});

describe("while an import runs", () => {
  test("its progress shows entry by entry and other requests are answered meanwhile", async () => {
    // In the embedded deployment a loop of awaited statements held every other request until it ended.
    const csv = "title,url,time_added,tags,status\r\n" + Array.from({ length: 600 }, (_, i) => `P${i},https://progress.example.test/${i},1600000000,a|b,unread`).join("\r\n");
    const res = await upload(csv, { key: carolKey });
    const id = (await res.json()).import.id;
    let job: any;
    await eventually(async () => {
      job = (await (await trove.api(`/api/imports/${id}`, { key: carolKey })).json()).import;
      return job.processed > 0 || job.status === "completed";
    }, 240_000);
    expect(job.status).toBe("running");
    expect(job.processed).toBeLessThan(600);
    expect((await trove.api("/api/items?limit=1", { key: carolKey })).status).toBe(200);
    expect((await waitForJob(trove, "imports", id, carolKey)).created).toBe(600);
  }, 600_000);
});

describe("limits and bad input", () => {
  test("the plan's limit stops an import cleanly and the summary says how many were left", async () => {
    const csv = "title,url,time_added,tags,status\r\n" + Array.from({ length: 5 }, (_, i) => `T${i},https://quota.example.test/${i},1600000000,,unread`).join("\r\n");
    const { job } = await importFile(csv, { key: bobKey });
    expect(job).toMatchObject({ status: "completed", created: 3, notImported: 2, stoppedBy: "quota_reached" });
    expect((await itemsOf(bobKey)).filter((i) => i.url.startsWith("https://quota.example.test/"))).toHaveLength(3);
  });

  test("a file of no known format answers 400; a named format that does not fit fails the job with a reason", async () => {
    const res = await upload(new Uint8Array([0, 1, 2, 3, 255, 254]));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "validation_failed", fields: { format: expect.any(String) } });
    const bogus = await upload("title,url\r\n", { format: "omnivore_zip" });
    const job = await waitForJob(trove, "imports", (await bogus.json()).import.id);
    expect(job.status).toBe("failed");
    expect(job.error).toBeString();
  });

  test("an archive inflating past 256 MiB fails the job; a truncated file imports what is readable and says so", async () => {
    // 20 entries of 15 MiB of zeros: each under the 16 MiB an entry may, together past the archive's 256 MiB.
    const bomb = repeatZip(Array.from({ length: 20 }, (_, i) => ({ name: i === 0 ? "metadata_0_to_1.json" : `content/z${i}.html`, mebibytes: 15 })));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const res = await upload(bomb, { format: "omnivore_zip" });
    expect(res.status).toBe(200);
    const failed = await waitForJob(trove, "imports", (await res.json()).import.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toBe(`the archive expands past ${256 * 1024 * 1024} bytes`);
    // The upload is kept only while its job may still need it; it goes just after the job is marked failed.
    await eventually(async () => !(await trove.blobs.list()).includes(`import-${failed.id}`), 60_000);

    const full = JSON.stringify({ items: Array.from({ length: 3 }, (_, i) => ({ id: `x${i}`, url: `https://cut.example.test/${i}`, title: `Cut ${i}`, status: "stashed", tags: [], collections: [], createdAt: 1600000000, updatedAt: 1600000000, processedAt: null, contentExtractedAt: null, source: null, highlights: [] })) });
    const cut = full.slice(0, full.indexOf("https://cut.example.test/2") + 5);
    const { job } = await importFile(cut, { format: "trove_json", contentType: "application/json", key: carolKey });
    expect(job.status).toBe("completed");
    expect(job.created).toBe(2);
    expect(job.error).toContain("ends early");
  }, 600_000);

  test("an Omnivore ZIP of four 60 MB pages: those pages are refused one by one, every entry and the other pages are imported", async () => {
    const slugs = ["a", "b", "c", "d", "e", "f"];
    const metadata = slugs.map((slug) => ({ id: slug, slug, title: `Page ${slug}`, url: `https://bomb.invalid/${slug}`, state: "Succeeded", labels: [], savedAt: "2023-05-01T10:00:00.000Z" }));
    // 60 MiB of markup each, deflated to about 60 KB.
    const page = (text: string) => strToU8(`<article><h1>${text}</h1><p>A page of ordinary size, kept as the entry's content.</p></article>`);
    const zip = repeatZip([
      { name: "metadata_0_to_6.json", bytes: strToU8(JSON.stringify(metadata)) },
      ...slugs.slice(0, 4).map((slug) => ({ name: `content/${slug}.html`, mebibytes: 60, unit: "<p>bomb bomb</p>" })),
      { name: "content/e.html", bytes: page("Page e") },
      { name: "content/f.html", bytes: page("Page f") },
    ]);
    expect(zip.length).toBeLessThan(1024 * 1024);
    const { job, failures } = await importFile(zip, { contentType: "application/zip", key: carolKey });
    expect(job).toMatchObject({ status: "completed", format: "omnivore_zip", entries: 6, created: 6, failed: 0, error: null });
    expect(failures.map((f) => f.reason)).toEqual(
      slugs.slice(0, 4).map((slug) => `content/${slug}.html: expands past ${16 * 1024 * 1024} bytes: not read (a ZIP bomb?); the entry is imported without it`),
    );
    const items = (await fromSource("import:omnivore", carolKey)).filter((i) => i.url.startsWith("https://bomb.invalid/"));
    expect(items.map((i) => [i.url, i.title]).sort()).toEqual(slugs.map((slug) => [`https://bomb.invalid/${slug}`, `Page ${slug}`]));
    for (const slug of ["e", "f"]) expect(items.find((i) => i.url.endsWith(`/${slug}`))).toMatchObject({ contentAvailable: true });
  });

  test("bookmarks in 150,000 nested folders: the first 100 levels are imported, and the summary says why the rest is not", async () => {
    const levels = 150_000;
    let file = "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>";
    for (let i = 0; i < levels; i++) file += `<DT><A HREF=https://deep.invalid/${i}>b</A><DT><H3>f</H3><DL>`;
    expect(file.length).toBeLessThan(10 * 1024 * 1024);
    const { job } = await importFile(file, { contentType: "text/html", key: carolKey });
    expect(job).toMatchObject({ status: "completed", format: "netscape_html", entries: 100, created: 100, failed: 0 });
    expect(job.error).toBe("the file ends early (folders are nested deeper than 100 levels; the rest of the file was not read); what was readable was imported");
    const items = await fromSource("import:netscape", carolKey);
    expect(items.map((i) => i.url).sort()).toEqual(Array.from({ length: 100 }, (_, i) => `https://deep.invalid/${i}`).sort());
    // The deepest one read sits in 99 folders: its collection is their path, cut to a collection name's length.
    const deepest = items.find((i) => i.url === "https://deep.invalid/99");
    expect(deepest.collectionName).toStartWith("f / f / f / f");
    expect(deepest.collectionName.length).toBeLessThanOrEqual(200);
  });

  test("an upload over the body limit answers 413; base64 JSON works like a raw upload", async () => {
    const res = await upload(new Uint8Array(11 * 1024 * 1024));
    expect(res.status).toBe(413);
    expect((await res.json()).error).toBe("payload_too_large");
    const csv = "title,url,time_added,tags,status\r\nB64,https://b64.example.test/,1600000000,,unread\r\n";
    const json = await trove.api("/api/imports", { method: "POST", json: { file: Buffer.from(csv).toString("base64"), fileName: "pocket.csv" }, key: carolKey });
    expect(json.status).toBe(200);
    const job = await waitForJob(trove, "imports", (await json.json()).import.id, carolKey);
    expect(job).toMatchObject({ status: "completed", format: "pocket_csv", fileName: "pocket.csv", created: 1 });
    const notBase64 = await trove.api("/api/imports", { method: "POST", json: { file: "not base64!" } });
    expect(notBase64.status).toBe(400);
  });

  test("another account's job is 404; scoped and read-only keys cannot import", async () => {
    const csv = "title,url,time_added,tags,status\r\nMine,https://mine.example.test/,1600000000,,unread\r\n";
    const { job } = await importFile(csv, { key: carolKey });
    const other = await trove.api(`/api/imports/${job.id}`, { key: bobKey });
    expect(other.status).toBe(404);
    expect((await other.json()).error).toBe("not_found");
    expect((await (await trove.api("/api/imports", { key: bobKey })).json()).imports.every((j: any) => j.id !== job.id)).toBe(true);
    const scoped = await addClientKey(trove, { email: "bob@example.test", scope: { tagSlugs: ["reading"] } });
    expect((await upload(csv, { key: scoped })).status).toBe(403);
    const readOnly = await addClientKey(trove, { email: "bob@example.test", access: "read_only" });
    expect((await upload(csv, { key: readOnly })).status).toBe(403);
  });
});
