// Pages with content stay within their byte budget. Real: every service in this process on the test stack; the
// 24 large items (512 KiB of Markdown each, the stored maximum) are inserted in one statement, since extracting
// 12 MiB of pages would only slow the test down.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { contentPageBytes } from "@trove/contracts";
import { contentCapBytes } from "@trove/extract";
import { startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
const large = 24;
beforeAll(async () => {
  trove = await startTrove();
  const { id: accountId } = await trove.db.withSchema("gateway").selectFrom("accounts").select("id").where("email", "=", "alice@example.test").executeTakeFirstOrThrow();
  const content = JSON.stringify({ schemaVersion: 2, meta: { frontmatter: { title: "Big" } }, items: { main: { format: "markdown", markdown: "" } }, media: [] });
  await sql`insert into items.items (id, account_id, url, url_hash, title, created_at, updated_at, last_seen_at,
      content_markdown, content, content_size, content_extracted_at, content_key, content_source)
    select 'big-' || n, ${accountId}, 'https://big-pages.test/' || n, md5('big' || n), 'Big ' || n, 1700000000 + n, 1700000000 + n, 1700000000 + n,
      repeat(chr(97 + n % 26), ${contentCapBytes}), ${content}::jsonb, ${contentCapBytes}, 1700000000 + n, md5('k' || n), 'browser'
    from generate_series(1, ${large}) n`.execute(trove.db);
});
afterAll(() => trove.stop());

const get = async (path: string) => {
  const res = await trove.api(path);
  const text = await res.text();
  return { status: res.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) };
};

describe("pages with content", () => {
  const perPage = Math.floor(contentPageBytes / contentCapBytes);

  test("a list with content ends at the budget and nextOffset continues it to the end, every item once", async () => {
    const seen: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const { status, bytes, body } = await get(`/api/items?source=big-pages.test&include=content&limit=1000&offset=${offset}`);
      expect(status).toBe(200);
      expect(body.count).toBe(large);
      const markdown = body.items.reduce((n: number, i: any) => n + Buffer.byteLength(i.contentMarkdown), 0);
      expect(markdown).toBeLessThanOrEqual(contentPageBytes);
      // The Markdown travels twice (contentMarkdown and content.items.main): the body stays near twice the budget.
      expect(bytes).toBeLessThan(2 * contentPageBytes + 64 * 1024);
      expect(body.items.every((i: any) => i.contentMarkdown.length === contentCapBytes && i.content.items.main.markdown === i.contentMarkdown)).toBe(true);
      seen.push(...body.items.map((i: any) => i.id));
      expect(body.nextOffset).toBe(seen.length < large ? seen.length : null);
      offset = body.nextOffset;
      pages++;
    }
    expect(pages).toBe(Math.ceil(large / perPage));
    expect(new Set(seen).size).toBe(large);
    expect(seen.length).toBe(large);
  });

  test("the feed (always with content) is paged by the same budget", async () => {
    const first = await get("/api/feed?limit=1000");
    expect(first.body.items.length).toBe(perPage);
    expect(first.body.nextOffset).toBe(perPage);
    expect(first.bytes).toBeLessThan(2 * contentPageBytes + 64 * 1024);
    const rest = await get(`/api/feed?limit=1000&offset=${perPage}`);
    expect(rest.body.items.length).toBe(large - perPage);
    expect(rest.body.nextOffset).toBeNull();
  });

  test("without content the page is as long as the limit; nextOffset follows limit and count", async () => {
    const all = await get("/api/items?source=big-pages.test&limit=1000");
    expect(all.body.items.length).toBe(large);
    expect(all.body.nextOffset).toBeNull();
    expect(all.body.items.every((i: any) => i.contentMarkdown === undefined)).toBe(true);
    const some = await get("/api/items?source=big-pages.test&limit=5&offset=5");
    expect(some.body).toMatchObject({ limit: 5, offset: 5, count: large, nextOffset: 10 });
  });

  test("a small page with content is not cut", async () => {
    const few = await get("/api/items?source=big-pages.test&include=content&limit=3");
    expect(few.body.items.length).toBe(3);
    expect(few.body.nextOffset).toBe(3);
  });
});
