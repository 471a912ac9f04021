// Only web addresses become items. The URL is kept as the file wrote it (trimmed): the items service normalises.
import { cleanText } from "./text.ts";

export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

export function checkWebUrl(value: unknown, maxLength: number): UrlCheck {
  const text = typeof value === "string" ? cleanText(value).trim() : "";
  if (text === "") return { ok: false, reason: "no URL" };
  if (text.length > maxLength) return { ok: false, reason: `URL longer than ${maxLength} characters` };
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return { ok: false, reason: "not a valid URL" };
  }
  // javascript:, place: (Firefox smart folders), file:, data:, about: ... are not pages to save.
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return { ok: false, reason: `not a web address (${parsed.protocol} URL)` };
  }
  if (parsed.hostname === "") return { ok: false, reason: "not a valid URL (no host)" };
  return { ok: true, url: text };
}
