// Text as the index and the queries see it: the same folding on both sides, so accents and CJK runs match
// whether PostgreSQL has unaccent or not (PGlite and PostgreSQL give the same answers).

/** Characters PostgreSQL text cannot hold (NUL) and lone surrogates, replaced by a space. */
const unstorable = /[\u0000]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const combiningMarks = /[\u0300-\u036f]/g;
const cjkRun = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/**
 * Lowercase, compatibility forms (full-width letters, ligatures) and accents folded (é -> e): only the Latin,
 * Greek and Cyrillic combining marks are dropped, so kana and Hangul keep their meaning.
 */
export function fold(text: string): string {
  return text.replace(unstorable, " ").normalize("NFKD").replace(combiningMarks, "").normalize("NFC").toLowerCase();
}

/**
 * CJK has no spaces: the parser makes a whole run one token, so a word inside it could never be found. Each run
 * becomes its overlapping character bigrams (東京都 -> 東京 京都), on documents and queries alike.
 */
export function segmentCjk(text: string): string {
  return text.replace(cjkRun, (run) => {
    const chars = [...run];
    if (chars.length < 3) return ` ${run} `;
    const grams: string[] = [];
    for (let i = 0; i + 1 < chars.length; i++) grams.push(chars[i]! + chars[i + 1]!);
    return ` ${grams.join(" ")} `;
  });
}

/** A document field or a query as it goes into the index. */
export const indexText = (text: string): string => segmentCjk(fold(text));

export interface PreparedQuery {
  /** The whole query, folded, for websearch_to_tsquery. */
  text: string;
  /** The query without its last word, when that word is matched as a prefix. */
  rest: string;
  /** The last word (letters and digits only), matched as a prefix; null when the query ends otherwise. */
  prefix: string | null;
  /** The folded query for trigram similarity; empty when the query uses operators (their meaning would be lost). */
  fuzzy: string;
  /** Words a snippet should show (excluded words left out). */
  terms: string[];
}

export function prepareQuery(q: string): PreparedQuery {
  const text = indexText(q).replace(/\s+/g, " ").trim();
  const quotes = (text.match(/"/g) ?? []).length;
  const tokens = text.split(" ");
  const last = tokens.at(-1) ?? "";
  const before = tokens.at(-2)?.toLowerCase();
  // A prefix only for a plain last word: not inside a phrase, not excluded, not the OR operator or after it.
  const plain = quotes % 2 === 0 && !text.endsWith('"') && /^[\p{L}\p{N}]+$/u.test(last) && last !== "or" && before !== "or";
  const terms: string[] = [];
  for (const m of text.matchAll(/(-?)"([^"]*)"|(-?)([^\s"]+)/g)) {
    if (m[1] === "-" || m[3] === "-") continue;
    const words = (m[2] ?? m[4] ?? "").split(/[^\p{L}\p{N}]+/u).filter((w) => w && w !== "or");
    terms.push(...words);
  }
  return {
    text,
    rest: plain ? tokens.slice(0, -1).join(" ") : text,
    prefix: plain ? last : null,
    fuzzy: quotes > 0 || tokens.some((t) => t.startsWith("-") || t === "or") ? "" : terms.join(" "),
    terms: [...new Set(terms)],
  };
}

/** Of the fields of one weight, the first that contains a query term (folded), else the first. */
export function matchedField(fields: { name: string; text: string }[], terms: string[]): string | null {
  // One field is the answer whatever it holds: no need to fold it (content is the long one).
  if (fields.length === 1) return fields[0]!.name;
  for (const f of fields) {
    const t = indexText(f.text);
    if (terms.some((w) => t.includes(w))) return f.name;
  }
  return fields[0]?.name ?? null;
}

/** Characters of a field a snippet looks through for the match. */
const snippetScanChars = 64 * 1024;

/**
 * At most `maxBytes` UTF-8 bytes of `text` around the first query term found, never cut inside a character
 * (code points are whole; a cut falls between them). Folding keeps most lengths, so the match is located in
 * the folded text and mapped back by position when the lengths agree, else the snippet starts at the top.
 */
export function snippet(text: string, terms: string[], maxBytes = 600): string {
  // The match is looked for in the first 64K characters at most: folding is linear work on the event loop.
  const clean = text.slice(0, snippetScanChars).replace(unstorable, " ").replace(/\s+/g, " ").trim();
  const folded = fold(clean);
  let at = -1;
  if (folded.length === clean.length) {
    for (const w of terms) {
      const i = folded.indexOf(w);
      if (i >= 0 && (at < 0 || i < at)) at = i;
    }
  }
  // Start a little before the match, so it reads as part of a sentence; slices may split a surrogate pair at
  // their ends, and the broken half is dropped.
  const from = at <= 0 ? 0 : Math.max(0, at - Math.floor(maxBytes / 6));
  return fitBytes([...clean.slice(from, from + maxBytes + Math.floor(maxBytes / 6)).replace(unstorable, "")], maxBytes);
}

function fitBytes(chars: string[], maxBytes: number): string {
  let out = "";
  let used = 0;
  for (const c of chars) {
    const n = Buffer.byteLength(c, "utf8");
    if (used + n > maxBytes) break;
    out += c;
    used += n;
  }
  return out;
}
