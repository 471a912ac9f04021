// Strings from import files end up in PostgreSQL text and jsonb, which refuse NUL characters (both) and lone
// UTF-16 surrogates (jsonb): every string a parser keeps passes through cleanText.

/** `value` without NUL characters and with lone surrogates replaced by U+FFFD. */
export function cleanText(value: string): string {
  return value.replaceAll("\u0000", "").toWellFormed();
}

/** At most `max` UTF-16 units, never splitting a surrogate pair. */
export function clampText(value: string, max: number): string {
  if (value.length <= max) return value;
  const last = value.charCodeAt(max - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
  return value.slice(0, end);
}

/** A cleaned, trimmed, clamped string; undefined when not a string or empty. */
export function optionalText(value: unknown, max: number): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = clampText(cleanText(value).trim(), max);
  return text === "" ? undefined : text;
}

/**
 * The file's text: UTF-8 unless a UTF-16 byte order mark says otherwise (spreadsheet tools save CSV as UTF-16).
 * Invalid bytes become U+FFFD rather than failing the file; the BOM is dropped.
 */
export function decodeText(bytes: Uint8Array): string {
  const encoding =
    bytes[0] === 0xff && bytes[1] === 0xfe ? "utf-16le" : bytes[0] === 0xfe && bytes[1] === 0xff ? "utf-16be" : "utf-8";
  return new TextDecoder(encoding).decode(bytes);
}
