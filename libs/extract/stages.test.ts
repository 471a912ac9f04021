// Tests of the pipeline's stages on small pages written for them: structured hints (JSON-LD articleBody,
// metadata before DOM heuristics), the scoring pass (share bars, newsletter boxes, comments, link lists, credits),
// its recall guards (a page that is a list, the article's own lists, tables, code, quotes and captions), the lead
// and the title. Each page is run through extractHtml, the way a saved page is, and through the stage alone where
// the stage's own decision is the point.
import { describe, expect, test } from "bun:test";
import { extractHtml } from "./index.ts";
import { parseDocument } from "./document.ts";
import { removeJunk } from "./clean.ts";
import { removeBoilerplate } from "./score.ts";
import { readMetadata, chooseTitle } from "./metadata.ts";
import { articleBodyElement, coversArticleBody } from "./structured.ts";
import { markLead } from "./lead.ts";
import { densestRun } from "./paragraphs.ts";
import { stripCaptionCredits } from "./credits.ts";
import { textOf } from "./dom.ts";

const url = "https://news.example.test/2026/11/a-story";

// Prose that any extractor takes for an article: five paragraphs of plain sentences in the given language.
const sentences = {
  en: "The council met on Tuesday evening to discuss the new bridge, and after a long debate the members agreed that the plans should be published before the winter.",
  de: "Der Gemeinderat traf sich am Dienstagabend, um über die neue Brücke zu sprechen, und nach langer Debatte waren sich die Mitglieder einig, dass die Pläne vor dem Winter veröffentlicht werden sollen.",
};
const prose = (lang: keyof typeof sentences, n = 5, tag = "p"): string =>
  Array.from({ length: n }, (_, i) => `<${tag}>(${i + 1}) ${sentences[lang]}</${tag}>`).join("\n");

const html = (body: string, head = "<title>A story - Example News</title>", lang = "en"): string =>
  `<!DOCTYPE html><html lang="${lang}"><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

// Links as a share bar written without any telling class or id: the structure alone must give it away.
const shareBar = `<div class="bar"><a href="https://facebook.example.test/share?u=1">Facebook</a> <a href="https://x.example.test/intent?u=1">X</a> <a href="mailto:?body=1">E-Mail</a> <a href="https://wa.example.test/send?u=1">WhatsApp</a></div>`;

describe("structured hints", () => {
  const articleBody = Array.from({ length: 5 }, (_, i) => `(${i + 1}) ${sentences.en}`).join("\n\n");
  const ld = JSON.stringify({
    "@context": "https://schema.org",
    "@type": "NewsArticle",
    headline: "The bridge plans will be published",
    author: { "@type": "Person", name: "Jo Reporter" },
    datePublished: "2026-11-20T08:00:00Z",
    publisher: { "@type": "Organization", name: "Example News" },
    articleBody,
  });
  const head = `<title>The bridge plans will be published | Example News</title>
    <script type="application/ld+json">${ld}</script>
    <meta property="og:title" content="Bridge: what happens next">
    <meta name="author" content="Someone Else">
    <meta property="og:site_name" content="Example">`;

  test("metadata comes from JSON-LD before OpenGraph, meta tags and the DOM", () => {
    const page = html(`<h1>The bridge plans will be published</h1><p class="byline">By A. Nother</p><div>${prose("en")}</div>`, head);
    const ex = extractHtml(page, { url });
    expect(ex.title).toBe("The bridge plans will be published");
    expect(ex.byline).toBe("Jo Reporter");
    expect(ex.published).toBe("2026-11-20T08:00:00.000Z");
    expect(ex.siteName).toBe("Example News");
    expect(ex.lang).toBe("en");
  });

  test("the JSON-LD articleBody is read, and checks the article that was picked", () => {
    const doc = parseDocument(html(`<div id="story">${prose("en")}</div>`, head), url);
    const meta = readMetadata(doc, url);
    expect(meta.articleBody).toBe(articleBody);
    expect(coversArticleBody(textOf(doc.body), meta.articleBody)).toBe(true);
    expect(coversArticleBody("A caption and a teaser, nothing more.", meta.articleBody)).toBe(false);
    // The element holding the stated text is the smallest one around its first and last paragraphs.
    const found = articleBodyElement(doc, meta.articleBody);
    expect(found?.getAttribute("id")).toBe("story");
  });

  test("a page without structured data keeps Readability's answers", () => {
    const ex = extractHtml(html(`<article><h1>Plain page heading here</h1>${prose("en")}</article>`, "<title>Plain page heading here - Site</title>"), { url });
    expect(ex.title).toBe("Plain page heading here");
    expect(ex.content.items.main?.meta?.extractor).toBe("readability");
  });
});

describe("the scoring pass", () => {
  test("a share bar repeated at the top and the bottom of the article is dropped, the article kept", () => {
    const ex = extractHtml(html(`<article><h1>A story</h1>${shareBar}${prose("en")}${shareBar}</article>`), { url });
    for (let i = 1; i <= 5; i++) expect(ex.markdown).toContain(`(${i}) The council met`);
    expect(ex.markdown).not.toContain("WhatsApp");
    expect(ex.markdown).not.toContain("Facebook");
  });

  test("a German page: the newsletter box inside the article goes, whatever its words", () => {
    const box = `<div class="kasten"><h3>Immer gut informiert</h3><p>Jeden Morgen die wichtigsten Nachrichten aus der Region in Ihrem Postfach.</p>
      <form action="/anmelden"><input type="email" name="email"><button>Anmelden</button></form></div>`;
    const page = html(`<article><h1>Neue Brücke</h1>${prose("de", 3)}${box}${prose("de", 2)}</article>`, "<title>Neue Brücke</title>", "de");
    const ex = extractHtml(page, { url });
    expect(ex.markdown).toContain("(1) Der Gemeinderat traf sich");
    expect(ex.markdown.match(/Der Gemeinderat traf sich/g)?.length).toBe(5);
    expect(ex.markdown).not.toContain("Immer gut informiert");
    expect(ex.markdown).not.toContain("Postfach");
    expect(ex.lang).toBe("de");
  });

  test("a comment section under the article is dropped", () => {
    const comments = `<section id="comments"><h2>3 Antworten</h2><ol class="comment-list">${Array.from(
      { length: 3 },
      (_, i) => `<li class="comment"><p class="who">Leser ${i}</p><p>Ein langer Kommentar eines Lesers ${i}, der mit vielen Worten erklärt, warum er anderer Meinung ist als der Autor dieses Artikels.</p></li>`,
    ).join("")}</ol></section>`;
    const ex = extractHtml(html(`<div class="post"><h1>Neue Brücke</h1>${prose("de")}${comments}</div>`, "<title>Neue Brücke</title>", "de"), { url });
    expect(ex.markdown).toContain("(5) Der Gemeinderat");
    expect(ex.markdown).not.toContain("Ein langer Kommentar");
    expect(ex.markdown).not.toContain("3 Antworten");
  });

  test("'read more' links, a related list with its heading and image credits go; the article's own list, table, code, quote and caption stay", () => {
    const body = `<article><h1>A story</h1>${prose("en", 2)}
      <p><a href="https://news.example.test/2026/10/older-story">Council approves the budget for next year</a></p>
      <p>Lee también: <a href="https://news.example.test/2026/09/other">El puente viejo cumple noventa años</a></p>
      <ul><li>Plans are published in December.</li><li>Objections are heard in January.</li><li>Building starts in spring.</li></ul>
      <table><tr><th>Year</th><th>Cost</th></tr><tr><td>2026</td><td>4 million</td></tr><tr><td>2027</td><td>6 million</td></tr></table>
      <pre><code>bridge.span = 120</code></pre>
      <blockquote>We waited long enough for this bridge, said the mayor after the vote.</blockquote>
      <figure><img src="https://cdn.example.test/bridge.jpg" alt="The old bridge"><figcaption>The old bridge over the river, seen from the town hall. <span class="credit">Photo: J. Smith</span></figcaption></figure>
      ${prose("en", 3)}
      <h2>More on this</h2><ul><li><a href="https://news.example.test/a">First other story</a></li><li><a href="https://news.example.test/b">Second other story</a></li><li><a href="https://news.example.test/c">Third other story</a></li></ul>
      </article>`;
    const ex = extractHtml(html(body), { url });
    const md = ex.markdown;
    expect(md).not.toContain("Council approves the budget");
    expect(md).not.toContain("El puente viejo");
    expect(md).not.toContain("More on this");
    expect(md).not.toContain("other story");
    expect(md).not.toContain("J. Smith");
    expect(md).toContain("- Plans are published in December.");
    expect(md).toContain("| 2027 | 6 million |");
    expect(md).toContain("bridge.span = 120");
    expect(md).toContain("> We waited long enough");
    expect(md).toContain("The old bridge over the river, seen from the town hall.");
    // The last paragraphs stay.
    expect(md).toContain("(3) The council met");
  });

  test("a page whose real content is a long list of links is kept whole", () => {
    const items = Array.from({ length: 40 }, (_, i) => `<li><a href="https://tools${i}.example.test/">Tool number ${i}</a></li>`).join("");
    const ex = extractHtml(html(`<h1>Useful tools</h1><p>Tools we use.</p><ul>${items}</ul>`, "<title>Useful tools</title>"), { url });
    for (const i of [0, 17, 39]) expect(ex.markdown).toContain(`[Tool number ${i}](https://tools${i}.example.test/)`);
  });

  test("a long list inside an article, each item with its own sentence, is kept", () => {
    const items = Array.from(
      { length: 25 },
      (_, i) => `<li><a href="https://books.example.test/${i}">Book ${i}</a>: a novel about a town that builds a bridge and what it costs the people who live there.</li>`,
    ).join("");
    const ex = extractHtml(html(`<article><h1>Reading list</h1>${prose("en", 1)}<ol>${items}</ol></article>`), { url });
    expect(ex.markdown).toContain("Book 0");
    expect(ex.markdown).toContain("Book 24");
  });

  test("a list whose items are a linked title over a description (a digest) is kept", () => {
    const items = Array.from(
      { length: 4 },
      (_, i) => `<li><p><strong><a href="https://blog.example.test/${i}">Entry number ${i}</a></strong></p><p>What entry ${i} says, in a sentence or two of its own.</p></li>`,
    ).join("");
    const md = extractHtml(html(`<article><h1>Digest of the day</h1><ul>${items}</ul></article>`, "<title>Digest of the day</title>"), { url }).markdown;
    for (let i = 0; i < 4; i++) expect(md).toContain(`[Entry number ${i}](https://blog.example.test/${i})`);
  });

  test("the pass reports what it removed and why", () => {
    const doc = parseDocument(html(`<article><h1>A story</h1>${shareBar}${prose("en")}<div id="comments"><p>First!</p></div></article>`), url);
    const removals = removeJunk(doc, { keepNoscript: true });
    const reasons = [...removeBoilerplate(doc, removals).values()].sort();
    // The share bar is one line of links: a paragraph that is only links.
    expect(reasons).toEqual(["comments", "link_paragraph"]);
  });
});

describe("the article's edges", () => {
  test("date lines and labels before the first paragraph, and short furniture after the last, go; a closing sentence stays", () => {
    // All <p>s of one container, the way Readability keeps them: only their shape tells them apart.
    const body = `<article><h1>A story</h1><p><span>12.03.2026</span></p><p>Updated: 09:41</p>
      ${prose("en", 4)}<p>That is all for now.</p><p><em>aja/PAP</em></p><p>Print</p><p>Advertisement</p></article>`;
    const md = extractHtml(html(body), { url }).markdown;
    expect(md).not.toContain("12.03.2026");
    expect(md).not.toContain("Updated: 09:41");
    expect(md).not.toContain("aja/PAP");
    expect(md).not.toContain("Print");
    expect(md).not.toContain("Advertisement");
    expect(md).toContain("(4) The council met");
    expect(md).toContain("That is all for now.");
  });

  test("a short article is not trimmed down to nothing: at most a small share of it goes", () => {
    const body = `<article><h1>Short note here</h1><p>${sentences.en}</p><p>Contact: the town hall.</p><p>Phone 0123 456</p><p>Open Monday to Friday</p></article>`;
    const md = extractHtml(html(body, "<title>Short note here</title>"), { url }).markdown;
    expect(md).toContain("Open Monday to Friday");
  });
});

describe("second opinions on Readability's pick", () => {
  test("the densest run of paragraphs is found, and wins when Readability settles on a fraction of it", () => {
    const doc = parseDocument(html(`<div id="a">${prose("en", 2)}</div><div id="b">${prose("de", 6)}</div>`), url);
    expect(densestRun(doc)?.element.getAttribute("id")).toBe("b");
  });

  test("on a page of several <article>s, the one around the headline is the article", () => {
    // An endless-scroll page: the story asked for first, then the next story loaded below it, far longer, which
    // is what Readability settles on.
    const next = `<article><h2>Another story entirely</h2>${prose("de", 30)}</article>`;
    const page = html(`<article><h1>The bridge plans will be published</h1>${prose("en", 4)}</article>${next}`, "<title>The bridge plans will be published</title>");
    const ex = extractHtml(page, { url });
    expect(ex.markdown).toContain("(4) The council met");
    expect(ex.markdown).not.toContain("Der Gemeinderat");
  });

  test("cleaning keeps the headline even inside a box named as furniture", () => {
    const page = html(`<div class="share-header"><h1>The bridge plans will be published</h1></div><article>${prose("en")}</article>`, "<title>The bridge plans will be published</title>");
    const doc = parseDocument(page, url);
    readMetadata(doc, url);
    removeJunk(doc, { keepNoscript: true });
    expect(textOf(doc.body)).toContain("The bridge plans will be published");
  });

  test("credits are cut from captions; descriptive captions stay", () => {
    const figure = (caption: string) =>
      `<figure><img src="https://cdn.example.test/p.jpg" alt=""><figcaption>${caption}</figcaption></figure>`;
    const doc = parseDocument(
      html(
        figure("The new bridge at night. Foto: Jane Doe") +
          figure("Le pont au petit matin (REUTERS/John Roe)") +
          figure("El puente <small>EFE</small>") +
          figure("© Agentur XY") +
          figure("A photo of the old bridge: it stood for 90 years"),
      ),
      url,
    );
    stripCaptionCredits(doc);
    const captions = Array.from(doc.body.querySelectorAll("figcaption")).map((c) => textOf(c));
    expect(captions).toEqual(["The new bridge at night.", "Le pont au petit matin", "El puente", "A photo of the old bridge: it stood for 90 years"]);
  });

  test("credits are cut from captions that no class names: the block after an image, a block of its own in a figure", () => {
    const img = `<img src="https://cdn.example.test/p.jpg" alt="">`;
    const doc = parseDocument(
      html(
        `<div class="inline"><a href="https://cdn.example.test/big.jpg">${img}</a></div><p class="imagedescription">Marco, Ski-Star aus der Schweiz. © AFP / Jane Doe</p>` +
          `<figure><div class="wrap">${img}<figcaption>Will mit seinem Sohn</figcaption></div><span class="description">Judy Eddy/WENN.com</span></figure>` +
          `<figure>${img}<figcaption>. Imagen: Agencia Télam</figcaption></figure>` +
          `<div class="author"><div class="avatar">${img}</div><div class="bio">Jo Reporter writes about bridges. Photo: her own</div></div>` +
          `<p>${sentences.en} The architects and the engineers met again, and the mayor said: "It will open in May 2027."</p>`,
      ),
      url,
    );
    stripCaptionCredits(doc);
    const text = textOf(doc.body);
    expect(text).toContain("Marco, Ski-Star aus der Schweiz.");
    expect(text).not.toContain("AFP");
    expect(text).toContain("Will mit seinem Sohn");
    expect(text).not.toContain("WENN");
    expect(text).not.toContain("Télam");
    // A block beside an image with no caption's name is only trimmed of a credit at its end.
    expect(text).toContain("Jo Reporter writes about bridges.");
    expect(text).not.toContain("her own");
    // Text that merely follows an image, past a caption's length, is left as it is.
    expect(text).toContain('"It will open in May 2027."');
  });
});

describe("recipes", () => {
  const ld = (recipe: Record<string, unknown>) =>
    `<script type="application/ld+json">${JSON.stringify({ "@context": "https://schema.org", "@type": "Recipe", name: "Apfelkuchen", ...recipe })}</script>`;

  test("the stated ingredients are added when the extracted text lacks them; stated steps it has are not repeated", () => {
    const steps = ["Den Ofen auf 180 Grad vorheizen und die Form fetten.", "Die Äpfel schälen, in Spalten schneiden und auf dem Teig verteilen."];
    const head = `<title>Apfelkuchen</title>${ld({
      recipeIngredient: ["500 g Äpfel", "200 g Mehl", "100 g Butter"],
      recipeInstructions: steps.map((text) => ({ "@type": "HowToStep", text })),
    })}`;
    // The ingredients sit in a table beside the method, which is all Readability keeps.
    const body = `<div class="side"><table><tr><td>500 g</td><td>Äpfel</td></tr><tr><td>200 g</td><td>Mehl</td></tr></table></div>
      <article><h1>Apfelkuchen</h1>${steps.map((t) => `<p>${t} ${sentences.de}</p>`).join("")}${prose("de", 2)}</article>`;
    const md = extractHtml(html(body, head, "de"), { url }).markdown;
    expect(md).toContain("- 500 g Äpfel\n- 200 g Mehl\n- 100 g Butter");
    expect(md.match(/Den Ofen auf 180 Grad/g)?.length).toBe(1);
  });

  test("a page without a stated recipe, or whose text has it, is left as it is", () => {
    const plain = extractHtml(html(`<article><h1>A story</h1>${prose("en")}</article>`), { url }).markdown;
    expect(plain).not.toContain("- ");
    const head = `<title>Apfelkuchen</title>${ld({ recipeIngredient: ["500 g Äpfel", "200 g Mehl"] })}`;
    const md = extractHtml(html(`<article><h1>Apfelkuchen</h1><ul><li>500 g Äpfel</li><li>200 g Mehl</li></ul>${prose("de")}</article>`, head, "de"), { url }).markdown;
    expect(md.match(/500 g Äpfel/g)?.length).toBe(1);
  });
});

describe("lead and title", () => {
  test("a standfirst beside the headline, outside the article body, is put back at the top", () => {
    const page = html(`<header class="top"><h1>The bridge plans will be published</h1>
      <div class="intro">After months of debate the council has decided to put every plan for the new bridge online before winter.</div></header>
      <div class="body">${prose("en")}</div><footer>Contact</footer>`);
    const doc = parseDocument(page, url);
    readMetadata(doc, url); // marks the title heading the lead is looked for after
    expect(markLead(doc)?.text).toStartWith("After months of debate");
    const ex = extractHtml(page, { url });
    expect(ex.markdown).toStartWith("After months of debate");
    expect(ex.markdown).toContain("(5) The council met");
  });

  test("the title is the page's headline when its <title> agrees, else the structured title without the site name", () => {
    const meta = (head: string, body = "") => readMetadata(parseDocument(html(body, head), url), url);
    const og = `<meta property="og:title" content="Bridge plans published - Example News"><meta property="og:site_name" content="Example News">`;
    expect(chooseTitle(meta(`<title>Bridge plans published</title>${og}`), null)).toBe("Bridge plans published");
    expect(chooseTitle(meta(`<title>Bridge plans are out | Example News</title>${og}`, "<h1>Bridge plans are out</h1>"), null)).toBe(
      "Bridge plans are out",
    );
    // The host's name counts as the site's name.
    const host = `<meta property="og:title" content="Bridge plans published » news.example.test">`;
    expect(chooseTitle(meta(`<title>Bridge plans</title>${host}`), null)).toBe("Bridge plans published");
    // Without structured data, Readability's title.
    expect(chooseTitle(meta("<title>z</title>"), "Readability's pick")).toBe("Readability's pick");
  });
});

describe("controls, annotations and author boxes", () => {
  test("elements marked as controls by their role go with the form controls; a large one (a clickable card) is left to the scoring pass", () => {
    const card = `<div role="button" class="card">${sentences.de} ${sentences.de}</div>`;
    const doc = parseDocument(
      html(`<div>${prose("de", 3)}<div role="button" class="toggle"><span>Bild anzeigen</span> <span>Bild schließen</span></div><span role="switch">Dunkel</span>${card}</div>`, undefined, "de"),
      url,
    );
    removeJunk(doc, { keepNoscript: true });
    const text = textOf(doc.body);
    expect(text).not.toContain("Bild anzeigen");
    expect(text).not.toContain("Dunkel");
    expect(text).toContain("(3) Der Gemeinderat");
    expect(doc.body.querySelector(".card")).not.toBeNull();
  });

  test("ruby readings (furigana) are not read into the text", () => {
    const p = `<p><ruby>子<rt>こ</rt></ruby>どもへの<ruby>虐待<rp>(</rp><rt>ぎゃくたい</rt><rp>)</rp></ruby>をなくすための<ruby>法律<rt>ほうりつ</rt></ruby>ができました。</p>`;
    const ex = extractHtml(html(`<article><h1>法律</h1>${p.repeat(6)}</article>`, "<title>法律</title>", "ja"), { url });
    expect(ex.markdown).toContain("子どもへの虐待をなくすための法律ができました。");
    expect(ex.markdown).not.toContain("ぎゃくたい");
  });

  test("the author box whose text the page's JSON-LD gives as the author's description goes; the article stays", () => {
    const bio = "Jo Reporter has covered city hall for twenty years and writes about bridges, budgets and the people who argue about both.";
    const ld = JSON.stringify({
      "@context": "https://schema.org",
      "@graph": [
        { "@type": "NewsArticle", headline: "The bridge plans will be published", author: { "@id": "#jo" } },
        { "@type": "Person", "@id": "#jo", name: "Jo Reporter", description: bio },
      ],
    });
    const box = `<section class="about"><h4><a href="/authors/jo">Jo Reporter</a></h4><div class="text"><p>${bio}</p></div></section>`;
    // The same words quoted inside a long paragraph of the article are the article's.
    const quoted = `<p>${sentences.en} As the paper put it: "${bio}" ${sentences.en}</p>`;
    const head = `<title>The bridge plans will be published</title><script type="application/ld+json">${ld}</script>`;
    const ex = extractHtml(html(`<article><h1>The bridge plans will be published</h1>${prose("en", 4)}${quoted}${box}</article>`, head), { url });
    expect(ex.markdown).toContain("(4) The council met");
    expect(ex.markdown).toContain(`As the paper put it: "${bio}"`);
    expect(ex.markdown.split(bio).length).toBe(2);
    expect(ex.markdown).not.toContain("[Jo Reporter]");
  });

  test("an article given to readers without JavaScript in a <noscript> inside the article's container is read", () => {
    const paragraphs = prose("en", 4);
    const body = `<div class="post"><h1>The bridge plans will be published</h1><div class="post-body" itemprop="articleBody">
      <script type="text/template">${paragraphs}</script><noscript>${paragraphs}</noscript></div></div>
      <noscript><p>Please enable JavaScript to read the comments on this story, and to see the newest posts of this blog and all the others.</p></noscript>
      <div class="sidebar"><p>The latest news and insights from Example on bridges.</p></div>`;
    const ex = extractHtml(html(body), { url });
    expect(ex.markdown).toContain("(4) The council met");
    expect(ex.markdown).not.toContain("enable JavaScript");
  });

  test("text is stored in Unicode normalization form C, however the page spells it", () => {
    // "é" as e + accent; Bengali য় as য + nukta (the page's one code point, U+09DF, composes to the pair).
    const decomposed = "Café crème: কুষ্টিয়া".normalize("NFD");
    const head = `<title>${decomposed}</title>`;
    const ex = extractHtml(html(`<article><h1>${decomposed}</h1>${prose("en", 3)}<p>${decomposed} ${sentences.en}</p></article>`, head), { url });
    expect(ex.title).toBe(decomposed.normalize("NFC"));
    expect(ex.markdown).toContain(decomposed.normalize("NFC"));
    expect(ex.markdown).not.toContain("Cafe\u0301");
  });
});

describe("Markdown", () => {
  test("emphasis is written only where a renderer reads it as emphasis; no stray asterisks", () => {
    const p = (inner: string) => `<p>${inner} ${sentences.en}</p>`;
    const body = [
      p("<strong>Kostenreduktion<br></strong>Da Service-Experten nicht mehr vor Ort sein müssen."),
      p("<strong>33%</strong>of those in hospital."),
      p("It ended<em>.</em> Then"),
      p("the Trink<em>glas</em> and <em>one word</em> stay emphasised"),
    ].join("");
    const ex = extractHtml(html(`<article><h1>A story</h1>${body}${prose("de", 2)}</article>`), { url });
    expect(ex.markdown).toContain("**Kostenreduktion**  \nDa Service-Experten");
    expect(ex.markdown).toContain("33%of those in hospital.");
    expect(ex.markdown).toContain("It ended. Then");
    expect(ex.markdown).toContain("the Trink*glas* and *one word* stay emphasised");
  });

  test("an underscore inside a word or a bare URL is not escaped; one that could start emphasis is", () => {
    const body = `<p>Clone https://git.example.test/teensy_loader_cli.git and call snake_case_name, not _private_ ${sentences.en}</p>`;
    const ex = extractHtml(html(`<article><h1>A story</h1>${body}${prose("de", 3)}</article>`), { url });
    expect(ex.markdown).toContain("https://git.example.test/teensy_loader_cli.git and call snake_case_name, not \\_private\\_");
  });

  test("a linked <picture> stays, and its sources do not indent it into a code block", () => {
    const picture = `<figure class="asset"><a href="https://cdn.example.test/big.jpg"><picture>
      <source srcset="https://cdn.example.test/a.jpg 1x" media="(min-width: 480px)">
      <source srcset="https://cdn.example.test/b.jpg 1x">
      <img src="https://cdn.example.test/c.jpg" alt="The bridge">
    </picture></a></figure>`;
    const ex = extractHtml(html(`<article><h1>A story</h1>${prose("en", 2)}${picture}${prose("de", 3)}</article>`), { url });
    expect(ex.markdown).toMatch(/^\[!\[The bridge\]\(https:\/\/cdn\.example\.test\/c\.jpg\)\]/m);
    expect(ex.markdown).not.toMatch(/^ {4}/m);
  });

  test("text between a table's cells does not break the table or the page", () => {
    const table = `<table><tr><td>Year</td> stray <td>Cost</td></tr><!-- c --><tr><td>2026</td>x<td>4 million</td></tr><tr><td>2027</td><td>6 million</td></tr></table>`;
    const ex = extractHtml(html(`<article><h1>A story</h1>${prose("en", 3)}${table}${prose("en", 2)}</article>`), { url });
    expect(ex.content.items.main?.meta?.extractor).toBe("readability");
    expect(ex.markdown).toContain("| 2027 | 6 million |");
  });
});
