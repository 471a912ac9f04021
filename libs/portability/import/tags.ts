// Tag lists as files spell them: arrays, "a,b" and "a|b" strings, JSON lists (Instapaper) and Python list reprs
// (Readwise: ['a', "it's"]). Cleaning (trim, dedupe, clamp) is collect.ts's job.

/** Splits `text` on `separator`; a `[...]` list is read as quoted items instead. */
export function splitTagText(text: string, separator: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith("[") && trimmed.endsWith("]")) return readQuotedList(trimmed.slice(1, -1));
  return trimmed.split(separator);
}

/** Items of a JSON or Python list body (without brackets): quoted with ' or ", backslash escapes; bare items too. */
function readQuotedList(body: string): string[] {
  const items: string[] = [];
  let i = 0;
  while (i < body.length) {
    const c = body[i] as string;
    if (c === "," || /\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      let item = "";
      i++;
      while (i < body.length && body[i] !== c) {
        if (body[i] === "\\" && i + 1 < body.length) {
          const [text, width] = escape(body, i + 1);
          item += text;
          i += 1 + width;
        } else {
          item += body[i];
          i++;
        }
      }
      items.push(item);
      i++;
      continue;
    }
    const end = body.indexOf(",", i);
    items.push(body.slice(i, end < 0 ? body.length : end));
    i = end < 0 ? body.length : end;
  }
  return items;
}

/** The text of the escape whose letter is at `at`, and how many characters it spans. */
function escape(body: string, at: number): [string, number] {
  const letter = body[at] as string;
  if (letter === "u" && /^[0-9a-fA-F]{4}$/.test(body.slice(at + 1, at + 5))) {
    return [String.fromCharCode(Number.parseInt(body.slice(at + 1, at + 5), 16)), 5];
  }
  const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r" };
  return [simple[letter] ?? letter, 1];
}

/** Tag names from an array of strings or of `{label}` / `{name}` objects (wallabag, Omnivore). */
export function tagNames(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const names: string[] = [];
  for (const tag of value) {
    if (typeof tag === "string") names.push(tag);
    else if (tag && typeof tag === "object") {
      const record = tag as Record<string, unknown>;
      const name = record.label ?? record.name ?? record.title;
      if (typeof name === "string") names.push(name);
    }
  }
  return names;
}
