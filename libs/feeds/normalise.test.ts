// parseFeedText on documents written here: JSON Feed, entries without guid or link, hostile links, and the bounds.
import { describe, expect, test } from "bun:test";
import { FeedParseError, feedLimits } from "./index.ts";
import { parseFeedText } from "./normalise.ts";

describe("parseFeedText", () => {
  test("JSON Feed: items with content, dates and authors", () => {
    const feed = parseFeedText(
      JSON.stringify({
        version: "https://jsonfeed.org/version/1.1",
        title: "Jay's Feed",
        home_page_url: "https://jay.example.test/",
        items: [{ id: "1", url: "https://jay.example.test/1", title: "One", content_text: "Hello\n\nWorld", date_published: "2026-11-01T00:00:00Z", authors: [{ name: "Jay" }] }],
      }),
    );
    expect(feed).toMatchObject({ format: "json", title: "Jay's Feed", siteUrl: "https://jay.example.test/" });
    expect(feed.entries).toEqual([
      { key: "1", url: "https://jay.example.test/1", title: "One", html: "<p>Hello</p><p>World</p>", author: "Jay", publishedAt: 1_793_491_200, imageUrl: null },
    ]);
  });

  test("keys: guid, else link, else a stable hash of title and date; javascript: links are dropped", () => {
    const rss = (items: string) => `<rss version="2.0"><channel><title>T</title>${items}</channel></rss>`;
    const text = rss(
      `<item><title>A</title><link>https://x.test/a</link></item>` +
        `<item><title>B</title><link>javascript:alert(1)</link><pubDate>Mon, 02 Nov 2026 00:00:00 GMT</pubDate></item>`,
    );
    const [a, b] = parseFeedText(text).entries;
    expect(a!.key).toBe("https://x.test/a");
    expect(b!.url).toBeNull();
    expect(b!.key).toMatch(/^h:[0-9a-f]{64}$/);
    expect(parseFeedText(text).entries[1]!.key).toBe(b!.key);
  });

  test("at most 5,000 entries; long titles are cut; a non-feed is a FeedParseError", () => {
    const items = Array.from({ length: feedLimits.entries + 10 }, (_, i) => `<item><guid>${i}</guid><title>${i === 0 ? "x".repeat(5_000) : i}</title></item>`).join("");
    const feed = parseFeedText(`<rss version="2.0"><channel><title>Big</title>${items}</channel></rss>`);
    expect(feed.entries.length).toBe(feedLimits.entries);
    expect(feed.entries[0]!.title.length).toBe(feedLimits.title);
    expect(() => parseFeedText("<html><body>not a feed</body></html>")).toThrow(FeedParseError);
  });
});
