// What the sources read of HTML and text, on ordinary and on hostile input: the readers keep their meaning (visible
// text, anchors, the feed link, a confirmation code, sentences) and stop at their budgets. The service tests
// (services/sources/test) show the same through HTTP and SMTP.
import { describe, expect, test } from "bun:test";
import { alternateLink, findConfirmation, newsletterLinks, sentencesOf, summarize, tagsFor, visibleText } from "./index.ts";

describe("visible text", () => {
  test("script, style and template bodies are left out; entities decoded; whitespace runs and tags are one space", () => {
    const html = "<p>Caf&eacute;\n\n  <b>cr</b>&egrave;me</p><script>var a = '<p>x</p>';</script><style>p{}</style><template>t</template>end&nbsp;!";
    expect(visibleText(html, 1_000)).toBe("Café cr ème end !");
  });

  test("reading stops at the budget, counted after whitespace is made single", () => {
    expect(visibleText(`<p>${" ".repeat(100_000)}word ${"x".repeat(50)}</p>`, 10)).toBe("word xxxxx");
    expect(visibleText("<div>".repeat(50_000) + "deep" + "</x>".repeat(50_000), 100)).toBe("deep");
  });
});

describe("newsletter links", () => {
  test("the first web-version anchor and the first confirming one, their text read across inline tags", () => {
    const html =
      '<a href="https://l.example/unsub">Unsubscribe</a><a href=" https://l.example/web?a=1&amp;b=2 "><span>View</span>\n in <i>browser</i></a>' +
      '<a href="https://l.example/c?t=1">Confirm my subscription</a><a href="https://l.example/web2">View online</a>';
    expect(newsletterLinks(html)).toEqual({ viewOnline: "https://l.example/web?a=1&b=2", confirm: "https://l.example/c?t=1" });
  });

  test("an anchor without its end tag ends at the next one; non-web addresses are not anchors here", () => {
    const html = '<a href="javascript:confirm()">Confirm</a><a href="https://a.example/1">Read online<a href="https://a.example/verify">ok</a>';
    expect(newsletterLinks(html)).toEqual({ viewOnline: "https://a.example/1", confirm: "https://a.example/verify" });
  });
});

describe("confirmation", () => {
  test("a code after the words, across lines and punctuation; none when the words lead to nothing", () => {
    expect(findConfirmation("", "Your verification code is:\n\n   AB12-C9\n", "", null)).toEqual({ code: "AB12-C9", link: null });
    expect(findConfirmation("Confirmation code: 123456789", "", "<p>hi</p>", null)).toEqual({ code: "123456789", link: null });
    expect(findConfirmation("", `verification code${" ".repeat(300_000)}.`, "", null)).toBeNull();
    expect(findConfirmation("", "", `<p>Security code</p><p><b>7781</b></p>`, null)).toEqual({ code: "7781", link: null });
  });

  test("a bare confirming address in the text when no anchor confirms", () => {
    expect(findConfirmation("", "Click https://x.example/plain then https://x.example/verify?u=1) to finish", "", null)).toEqual({ code: null, link: "https://x.example/verify?u=1" });
  });
});

describe("summaries and sentences", () => {
  test("sentences end at a run of . ! ? before a space or the end; numbers and abbreviations inside do not end one", () => {
    expect(sentencesOf("It rose 3.5 percent. Really?! Yes... e.g.this one", 10)).toEqual(["It rose 3.5 percent.", "Really?!", "Yes...", "e.g.this one"]);
    expect(sentencesOf("a. b. c. d.", 2)).toEqual(["a.", "b."]);
  });

  test("one long word is one sentence: no summary", () => {
    expect(summarize(`${"a".repeat(49_998)}.b`)).toBeNull();
  });
});

describe("tags and feed links", () => {
  test("content rules match the visible text, case, accents and whitespace ignored", () => {
    const settings = { defaultTags: ["News", "news"], smartTagRules: [{ field: "content" as const, contains: "Crème  brûlée", tags: ["Dessert"] }] };
    expect(tagsFor({ title: "", url: null, author: null, html: "<p>creme\n<b>brulee</b></p>" }, settings)).toEqual(["News", "Dessert"]);
    expect(tagsFor({ title: "", url: null, author: null, html: "<".repeat(100_000) }, settings)).toEqual(["News"]);
  });

  test("the first RSS or Atom alternate link, relative to the page; none in a flood of '<link'", () => {
    const page = '<head><link rel="stylesheet" href="/s.css"><link rel="Alternate Feed" type=" application/atom+xml " href="feed.xml?a=1&amp;b=2"></head>';
    expect(alternateLink(page, "https://site.example/blog/")).toBe("https://site.example/blog/feed.xml?a=1&b=2");
    expect(alternateLink("<link".repeat(200_000), "https://site.example/")).toBeNull();
  });
});
