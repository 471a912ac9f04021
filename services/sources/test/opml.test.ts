// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP. OPML:
// imports in the shapes common readers export (flat, folders, nested folders and category attributes, YouTube
// feeds), duplicates reported, bad documents refused; the export parsed back and imported into another account.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseOpml } from "feedsmith";
import { addClientKey, bobKey, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000", TROVE_YOUTUBE_FEED_URL: "http://127.0.0.1:9/yt/feeds/videos.xml" });
});
afterAll(() => trove.stop());

/** Feed addresses no other test uses: port 9 on loopback, never polled here. */
const run = crypto.randomUUID().slice(0, 8);
const feed = (name: string) => `http://127.0.0.1:9/opml-${run}/${name}`;

async function importOpml(body: unknown, opts: { key?: string; contentType?: string } = {}) {
  const init =
    typeof body === "string"
      ? { method: "POST", key: opts.key, body, headers: { "content-type": opts.contentType ?? "text/x-opml" } }
      : { method: "POST", key: opts.key, json: body };
  const res = await trove.api("/api/sources/import-opml", init);
  return { status: res.status, body: await res.json() };
}

async function sourcesOf(key?: string): Promise<any[]> {
  const res = await trove.api("/api/sources?include=settings&limit=1000", { key });
  return (await res.json()).sources;
}

// Feedly: one level of folders, type="rss", text and title.
const feedly = `<?xml version="1.0" encoding="UTF-8"?>
<opml version="1.0">
  <head><title>Feedly subscriptions</title></head>
  <body>
    <outline text="Tech" title="Tech">
      <outline type="rss" text="Lobsters" title="Lobsters" xmlUrl="${feed("lobsters.rss")}" htmlUrl="https://lobste.rs.test/"/>
      <outline type="rss" text="Bits &amp; Bytes" title="Bits &amp; Bytes" xmlUrl="${feed("bits.atom")}"/>
    </outline>
    <outline text="Cooking" title="Cooking">
      <outline type="rss" text="Soup" title="Soup" xmlUrl="${feed("soup.xml")}"/>
    </outline>
  </body>
</opml>`;

describe("import", () => {
  test("folders become default tags; the answer lists what was created", async () => {
    const r = await importOpml(feedly);
    expect(r.status).toBe(200);
    expect(r.body.counts).toEqual({ created: 3, existing: 0, invalid: 0 });
    expect(r.body.created.map((c: any) => [c.source.name, c.source.target, c.tags])).toEqual([
      ["Lobsters", feed("lobsters.rss"), ["Tech"]],
      ["Bits & Bytes", feed("bits.atom"), ["Tech"]],
      ["Soup", feed("soup.xml"), ["Cooking"]],
    ]);
    const stored = (await sourcesOf()).find((s) => s.target === feed("soup.xml"));
    expect(stored).toMatchObject({ type: "rss", status: "syncing", name: "Soup", settings: { defaultTags: ["Cooking"] } });
  });

  test("importing again creates nothing and reports every feed as existing; repeats inside a file too", async () => {
    const again = await importOpml(feedly);
    expect(again.body.counts).toEqual({ created: 0, existing: 3, invalid: 0 });
    const before = (await sourcesOf()).length;
    const repeated = `<opml version="2.0"><body>
      <outline text="One" xmlUrl="${feed("twice.xml")}"/>
      <outline text="Folder"><outline text="One again" xmlUrl="${feed("twice.xml")}"/></outline>
    </body></opml>`;
    const r = await importOpml(repeated);
    expect(r.body.counts).toEqual({ created: 1, existing: 1, invalid: 0 });
    expect(r.body.existing[0]).toMatchObject({ sourceId: r.body.created[0].source.id, title: "One again" });
    expect((await sourcesOf()).length).toBe(before + 1);
  });

  test("nested folders, category attributes, YouTube channel feeds, JSON bodies with extra tags", async () => {
    const channel = "UCabcdefghijklmnopqrstuv";
    const nested = `<?xml version="1.0"?>
<opml version="2.0">
  <head><title>Inoreader</title></head>
  <body>
    <outline text="Reading">
      <outline text="Languages">
        <outline type="rss" text="Rust blog" xmlUrl="${feed("rust.xml")}" category="/News,/Lang/Systems"/>
      </outline>
    </outline>
    <outline type="rss" text="Videos" xmlUrl="https://www.youtube.com/feeds/videos.xml?channel_id=${channel}"/>
  </body>
</opml>`;
    const r = await importOpml({ opml: nested, defaultTags: ["imported"] });
    expect(r.status).toBe(200);
    expect(r.body.counts).toEqual({ created: 2, existing: 0, invalid: 0 });
    const [rust, videos] = r.body.created;
    expect(rust.tags).toEqual(["Reading", "Languages", "News", "Systems", "imported"]);
    expect(videos.source).toMatchObject({ type: "youtube_channel", target: channel, name: "Videos" });
  });

  test("feeds that cannot be followed are reported one by one; the others are followed", async () => {
    const mixed = `<opml version="2.0"><body>
      <outline text="Good" xmlUrl="${feed("good.xml")}"/>
      <outline text="Local file" xmlUrl="file:///etc/passwd"/>
      <outline text="Secret" xmlUrl="https://user:pw@feeds.example.test/rss"/>
      <outline text="Gibberish" xmlUrl="not a url"/>
      <outline text="Folder without feeds"><outline text="note only"/></outline>
    </body></opml>`;
    const r = await importOpml(mixed);
    expect(r.status).toBe(200);
    expect(r.body.counts).toEqual({ created: 1, existing: 0, invalid: 3 });
    expect(r.body.invalid.map((i: any) => i.title)).toEqual(["Local file", "Secret", "Gibberish"]);
    expect(r.body.invalid.every((i: any) => typeof i.error === "string" && i.error.length > 0)).toBe(true);
    expect((await sourcesOf()).some((s) => s.target.startsWith("file:"))).toBe(false);
  });

  test("a document that is not OPML answers 400 and follows nothing", async () => {
    const before = (await sourcesOf()).length;
    for (const bad of ["<opml><body><outline", "plain text", "<html><body><p>hello</p></body></html>", '{"not": "xml"}']) {
      const r = await importOpml(bad);
      expect({ bad, status: r.status, error: r.body.error }).toEqual({ bad, status: 400, error: "validation_failed" });
    }
    expect((await importOpml({ opml: "<rss version='2.0'><channel/></rss>" })).status).toBe(400);
    expect((await importOpml({})).status).toBe(400);
    // A document is taken as itself only with a text type the route names.
    expect((await importOpml(feedly, { contentType: "application/octet-stream" })).status).toBe(400);
    const tooMany = `<opml version="2.0"><body>${Array.from({ length: 1001 }, (_, i) => `<outline text="f${i}" xmlUrl="${feed(`many/${i}`)}"/>`).join("")}</body></opml>`;
    const r = await importOpml(tooMany);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("1000");
    expect((await sourcesOf()).length).toBe(before);
  });
});

describe("export", () => {
  test("an account without feeds gets a valid OPML document with an empty body", async () => {
    // Bob follows nothing yet (only the last export test imports into his account).
    expect(await sourcesOf(bobKey)).toEqual([]);
    const res = await trove.api("/api/sources/export-opml", { key: bobKey });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/x-opml");
    const xml = await res.text();
    expect(xml).toStartWith('<?xml version="1.0" encoding="utf-8"?>');
    expect(xml).toContain('<opml version="2.0">');
    expect(xml).toContain("<body></body>");
    expect(parseOpml(xml)).toMatchObject({ head: { title: "Trove sources" } });
    // Read back by Trove itself: nothing to follow, nothing refused.
    const again = await importOpml(xml, { key: bobKey });
    expect(again).toMatchObject({ status: 200, body: { counts: { created: 0, existing: 0, invalid: 0 } } });
  });

  test("feed secrets are masked for connected clients as in the source list; the personal key gets the working URLs", async () => {
    const secret = `${feed("private.xml")}?token=s3cret-opml-token&page=2`;
    expect((await importOpml({ opml: `<opml version="2.0"><body><outline text="Private" xmlUrl="${secret.replace(/&/g, "&amp;")}"/></body></opml>` })).body.counts.created).toBe(1);
    const xmlUrlOf = async (key?: string) => {
      const res = await trove.api("/api/sources/export-opml", { key });
      expect(res.status).toBe(200);
      const text = await res.text();
      const outlines = ((parseOpml(text) as { body?: { outlines?: any[] } }).body?.outlines ?? []).flatMap((o) => o.outlines ?? [o]);
      return { text, url: outlines.find((o) => o.text === "Private")?.xmlUrl as string | undefined };
    };
    const listed = (await (await trove.api("/api/sources?limit=1000")).json()).sources.find((s: any) => s.name === "Private").target;
    expect(listed).toBe(`${feed("private.xml")}?token=***&page=2`);
    for (const access of ["read_only", "read_write"] as const) {
      const { text, url } = await xmlUrlOf(await addClientKey(trove, { access }));
      expect({ access, url }).toEqual({ access, url: listed });
      expect(text).not.toContain("s3cret-opml-token");
    }
    expect((await xmlUrlOf()).url).toBe(secret);
  });

  test("valid OPML 2.0 with every feed (folders by first default tag) that another account imports whole", async () => {
    const res = await trove.api("/api/sources/export-opml");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/x-opml");
    expect(res.headers.get("content-disposition")).toContain('filename="trove-sources.opml"');
    const xml = await res.text();
    expect(xml).toContain('<opml version="2.0">');
    const doc = parseOpml(xml) as { body?: { outlines?: any[] } };
    const outlines = doc.body?.outlines ?? [];
    const flat = outlines.flatMap((o) => (o.outlines ? o.outlines.map((c: any) => ({ ...c, folder: o.text })) : [{ ...o, folder: null }]));
    const mine = (await sourcesOf()).filter((s) => s.type === "rss" || s.type === "youtube_channel");
    expect(flat).toHaveLength(mine.length);
    expect(flat.find((o) => o.xmlUrl === feed("bits.atom"))).toMatchObject({ text: "Bits & Bytes", type: "rss", folder: "Tech" });
    expect(flat.find((o) => String(o.xmlUrl).includes("channel_id=UCabcdefghijklmnopqrstuv"))?.xmlUrl).toBe(
      "http://127.0.0.1:9/yt/feeds/videos.xml?channel_id=UCabcdefghijklmnopqrstuv",
    );

    // Bob starts with nothing, imports Alice's export, and follows the same feeds with the same tags.
    expect((await trove.api("/api/sources/export-opml", { key: bobKey }).then((r) => r.text())).includes("xmlUrl")).toBe(false);
    const r = await importOpml(xml, { key: bobKey, contentType: "application/xml" });
    expect(r.body.counts).toEqual({ created: mine.length, existing: 0, invalid: 0 });
    const bobs = await sourcesOf(bobKey);
    expect(bobs.map((s) => s.target).sort()).toEqual(mine.map((s) => s.target).sort());
    expect(bobs.find((s) => s.target === feed("soup.xml"))?.settings.defaultTags).toEqual(["Cooking"]);
  });
});
