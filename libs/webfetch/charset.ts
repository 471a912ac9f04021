// Bytes -> text for fetched pages, choosing the charset the way browsers do.
import iconv from "iconv-lite";

/** The lowercase MIME type and charset parameter of a Content-Type header. */
export function parseContentType(header: string | null | undefined): { mime: string; charset: string | null } {
  if (!header) return { mime: "", charset: null };
  const [type = "", ...params] = header.split(";");
  let charset: string | null = null;
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== "charset") continue;
    const value = param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1").trim().toLowerCase();
    if (value) charset = value;
    break;
  }
  return { mime: type.trim().toLowerCase(), charset };
}

// WHATWG Encoding Standard label mappings that differ from iconv-lite's reading: browsers
// decode "iso-8859-1"/"ascii" as windows-1252 (pages rely on its curly quotes in 0x80-0x9f),
// gb2312 as GBK, Shift_JIS as its Microsoft superset, and so on.
const ALIASES: Record<string, string> = {
  "iso-8859-1": "windows-1252", "iso8859-1": "windows-1252", "iso_8859-1": "windows-1252", latin1: "windows-1252",
  l1: "windows-1252", "us-ascii": "windows-1252", ascii: "windows-1252", cp819: "windows-1252", ibm819: "windows-1252",
  cp1252: "windows-1252", "x-cp1252": "windows-1252", "iso-ir-100": "windows-1252",
  "iso-8859-9": "windows-1254", "iso_8859-9": "windows-1254", latin5: "windows-1254", l5: "windows-1254",
  "iso-8859-11": "windows-874", "tis-620": "windows-874",
  gb2312: "gbk", "gb_2312-80": "gbk", "x-gbk": "gbk", csgb2312: "gbk", chinese: "gbk", "iso-ir-58": "gbk",
  "shift-jis": "shift_jis", sjis: "shift_jis", "x-sjis": "shift_jis", ms_kanji: "shift_jis", ms932: "shift_jis",
  "windows-31j": "shift_jis", csshiftjis: "shift_jis",
  "ks_c_5601-1987": "euc-kr", "windows-949": "euc-kr", cp949: "euc-kr", korean: "euc-kr", ksc5601: "euc-kr",
  "x-euc-jp": "euc-jp", "big5-hkscs": "big5", "x-x-big5": "big5",
  utf8: "utf-8", "unicode-1-1-utf-8": "utf-8", "x-unicode20utf8": "utf-8",
  "utf-16": "utf-16le", unicode: "utf-16le", "ucs-2": "utf-16le",
  "x-mac-roman": "macintosh", mac: "macintosh",
};

/** A canonical, decodable charset name for `label`, or null when nobody knows it. */
export function canonicalCharset(label: string): string | null {
  const name = label.trim().toLowerCase();
  if (!name) return null;
  const mapped = ALIASES[name] ?? name;
  return iconv.encodingExists(mapped) ? mapped : null;
}

function bomCharset(bytes: Uint8Array): { charset: string; length: number } | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { charset: "utf-8", length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { charset: "utf-16le", length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { charset: "utf-16be", length: 2 };
  return null;
}

const PRESCAN_BYTES = 4096;

/**
 * The charset declared inside the document: an XML declaration, or a <meta charset>
 * / <meta http-equiv="content-type" content="...; charset=..."> in the first 4 KiB.
 */
export function declaredInDocument(bytes: Uint8Array): string | null {
  // latin1 maps bytes 1:1, so ASCII markup reads right whatever the real charset is.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, PRESCAN_BYTES)).toString("latin1");
  const xml = /^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([^"']+)["']/i.exec(head);
  if (xml?.[1]) {
    const found = canonicalCharset(xml[1]);
    if (found) return found;
  }
  const markup = head.replace(/<!--[\s\S]*?(-->|$)/g, "");
  for (const tag of markup.matchAll(/<meta\s[^>]*>/gi)) {
    const label = /charset\s*=\s*["']?\s*([^\s"';>/]+)/i.exec(tag[0])?.[1];
    if (!label) continue;
    const found = canonicalCharset(label);
    // A document readable as ASCII markup cannot be UTF-16, whatever it claims (WHATWG rule).
    if (found) return found.startsWith("utf-16") ? "utf-8" : found;
  }
  return null;
}

const strictUtf8 = () => new TextDecoder("utf-8", { fatal: true });

/** True when the bytes are UTF-8, tolerating a sequence cut off at the end (truncated bodies). */
function looksUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8().decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

function isMarkup(mime: string): boolean {
  return mime === "" || mime.includes("html") || mime.includes("xml");
}

/**
 * Decodes a body. Order: byte-order mark (it cannot lie, and browsers let it win over
 * the header), the Content-Type charset, for markup an in-document declaration, then
 * UTF-8 if the bytes are valid UTF-8, else windows-1252. Unknown labels are skipped,
 * so the fallback for them is UTF-8 (or windows-1252 for bytes that are not UTF-8).
 */
export function decodeBody(bytes: Uint8Array, contentTypeHeader: string | null): { text: string; charset: string } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bom = bomCharset(bytes);
  if (bom) return { text: iconv.decode(buf.subarray(bom.length), bom.charset, { stripBOM: false }), charset: bom.charset };

  const { mime, charset: headerLabel } = parseContentType(contentTypeHeader);
  const charset =
    (headerLabel ? canonicalCharset(headerLabel) : null) ??
    (isMarkup(mime) ? declaredInDocument(bytes) : null) ??
    (looksUtf8(bytes) ? "utf-8" : "windows-1252");
  return { text: iconv.decode(buf, charset, { stripBOM: false }), charset };
}

/** Whether a MIME type is worth decoding as text (pages, feeds, JSON), not PDFs or images. */
export function isTextual(mime: string): boolean {
  return (
    mime === "" ||
    mime.startsWith("text/") ||
    /[/+](xml|json|html|xhtml\+xml)$/.test(mime) ||
    mime.endsWith("javascript") ||
    mime === "application/x-www-form-urlencoded"
  );
}
