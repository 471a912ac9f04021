import { describe, expect, test } from "bun:test";
import iconv from "iconv-lite";
import { canonicalCharset, decodeBody, isTextual, parseContentType } from "./charset.ts";

const enc = (s: string, charset: string) => new Uint8Array(iconv.encode(s, charset));
const utf8 = (s: string) => new TextEncoder().encode(s);

describe("parseContentType", () => {
  test("mime lowercased, charset unquoted", () => {
    expect(parseContentType('Text/HTML; Charset="ISO-8859-1"')).toEqual({ mime: "text/html", charset: "iso-8859-1" });
    expect(parseContentType("application/pdf")).toEqual({ mime: "application/pdf", charset: null });
    expect(parseContentType(null)).toEqual({ mime: "", charset: null });
  });
});

describe("canonicalCharset", () => {
  test("WHATWG aliases and unknown labels", () => {
    expect(canonicalCharset("ISO-8859-1")).toBe("windows-1252");
    expect(canonicalCharset("us-ascii")).toBe("windows-1252");
    expect(canonicalCharset("Shift_JIS")).toBe("shift_jis");
    expect(canonicalCharset("gb2312")).toBe("gbk");
    expect(canonicalCharset("koi8-r")).toBe("koi8-r");
    expect(canonicalCharset("no-such-charset")).toBeNull();
  });
});

describe("decodeBody", () => {
  const cafe = "Café “quoted” — naïve";

  test("charset from the Content-Type header", () => {
    expect(decodeBody(enc(cafe, "windows-1252"), "text/html; charset=windows-1252")).toEqual({ text: cafe, charset: "windows-1252" });
  });

  test("iso-8859-1 is read as windows-1252, as browsers do", () => {
    const r = decodeBody(enc("“hi”", "windows-1252"), "text/html; charset=ISO-8859-1");
    expect(r).toEqual({ text: "“hi”", charset: "windows-1252" });
  });

  test("<meta charset> when the header has none", () => {
    const html = `<!doctype html><html><head><meta charset="windows-1252"><title>${cafe}</title>`;
    expect(decodeBody(enc(html, "windows-1252"), "text/html")).toEqual({ text: html, charset: "windows-1252" });
  });

  test("<meta http-equiv content-type>", () => {
    const html = `<html><head><meta http-equiv="Content-Type" content="text/html; charset=koi8-r"><title>Привет</title>`;
    expect(decodeBody(enc(html, "koi8-r"), null)).toEqual({ text: html, charset: "koi8-r" });
  });

  test("a <meta> inside a comment is ignored", () => {
    const html = `<!-- <meta charset="koi8-r"> --><p>plain</p>`;
    expect(decodeBody(utf8(html), "text/html").charset).toBe("utf-8");
  });

  test("a <meta> past the first 4 KiB is not looked for", () => {
    const html = `<p>${"x".repeat(5000)}</p><meta charset="koi8-r">`;
    expect(decodeBody(utf8(html), "text/html").charset).toBe("utf-8");
  });

  test("<meta> claiming UTF-16 means UTF-8", () => {
    expect(decodeBody(utf8(`<meta charset="utf-16"><p>é</p>`), "text/html")).toEqual({ text: `<meta charset="utf-16"><p>é</p>`, charset: "utf-8" });
  });

  test("XML declaration", () => {
    const xml = `<?xml version="1.0" encoding="ISO-8859-15"?><rss><title>5 €</title></rss>`;
    expect(decodeBody(enc(xml, "iso-8859-15"), "application/rss+xml")).toEqual({ text: xml, charset: "iso-8859-15" });
  });

  test("the header beats <meta>", () => {
    const html = `<meta charset="koi8-r"><p>${cafe}</p>`;
    expect(decodeBody(enc(html, "windows-1252"), "text/html; charset=windows-1252").charset).toBe("windows-1252");
  });

  test("a byte-order mark wins and is stripped", () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(cafe)]);
    expect(decodeBody(withBom, "text/html; charset=windows-1252")).toEqual({ text: cafe, charset: "utf-8" });
    const le = new Uint8Array([0xff, 0xfe, ...enc("hé", "utf-16le")]);
    expect(decodeBody(le, null)).toEqual({ text: "hé", charset: "utf-16le" });
  });

  test("Shift_JIS", () => {
    const text = "日本語のページ";
    expect(decodeBody(enc(text, "shift_jis"), "text/html; charset=Shift_JIS")).toEqual({ text, charset: "shift_jis" });
  });

  test("EUC-KR and GBK", () => {
    expect(decodeBody(enc("한국어", "euc-kr"), "text/plain; charset=euc-kr").text).toBe("한국어");
    expect(decodeBody(enc("中文网页", "gbk"), "text/html; charset=gb2312").text).toBe("中文网页");
  });

  test("undeclared valid UTF-8 is UTF-8", () => {
    expect(decodeBody(utf8(cafe), "text/html")).toEqual({ text: cafe, charset: "utf-8" });
  });

  test("undeclared bytes that are not UTF-8 are windows-1252", () => {
    expect(decodeBody(enc(cafe, "windows-1252"), "text/html")).toEqual({ text: cafe, charset: "windows-1252" });
  });

  test("UTF-8 cut mid-character (a truncated body) is still UTF-8", () => {
    const bytes = utf8("abc€");
    expect(decodeBody(bytes.subarray(0, bytes.length - 1), null).charset).toBe("utf-8");
  });

  test("an unknown label is skipped: UTF-8 fallback", () => {
    expect(decodeBody(utf8(cafe), "text/html; charset=x-klingon")).toEqual({ text: cafe, charset: "utf-8" });
  });
});

describe("isTextual", () => {
  test("pages, feeds and JSON yes; PDFs and images no", () => {
    for (const t of ["text/html", "text/plain", "application/xhtml+xml", "application/rss+xml", "application/json", "application/ld+json", ""]) {
      expect(isTextual(t)).toBe(true);
    }
    for (const t of ["application/pdf", "image/png", "application/octet-stream", "video/mp4"]) expect(isTextual(t)).toBe(false);
  });
});
