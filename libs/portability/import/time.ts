// Saved times in import files come as Unix seconds, milliseconds or microseconds (bookmark files disagree), or as
// date strings. A time that cannot be read, or lies outside 1970..9999, is left out: the entry is still imported.

/** 9999-12-31T23:59:59Z. */
const maxSeconds = 253_402_300_799;

/** Unix seconds from a number, a digit string or a date string; undefined when unreadable or out of range. */
export function unixSeconds(value: unknown): number | undefined {
  if (typeof value === "number") return fromNumber(value);
  if (value instanceof Date) return inRange(Math.floor(value.getTime() / 1000));
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return fromNumber(Number(text));
  return fromDateString(text);
}

function fromNumber(n: number): number | undefined {
  // 0 is what exports write for "unknown"; nothing was saved at the epoch.
  if (!Number.isFinite(n) || n <= 0) return undefined;
  // Seconds stay below 1e11 until the year 5138, so larger values are finer units.
  const seconds = n > 1e14 ? n / 1e6 : n > 1e11 ? n / 1e3 : n;
  const whole = Math.floor(seconds);
  return whole > maxSeconds ? undefined : whole;
}

function fromDateString(text: string): number | undefined {
  // A date needs a year; this keeps Date.parse from reading odd strings ("May 2") as some year's date.
  if (!/\d{4}/.test(text)) return undefined;
  const normalised = text
    // "2024-05-01 10:11:12" (Readwise, SQL dumps) -> ISO "T" separator.
    .replace(/^(\d{4}-\d{2}-\d{2}) (\d)/, "$1T$2")
    // "+0200" (PHP, wallabag) -> "+02:00".
    .replace(/([+-]\d{2})(\d{2})$/, "$1:$2")
    // A date-time without a zone is read as UTC, not as the worker's local time.
    .replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?)$/, "$1Z");
  const ms = Date.parse(normalised);
  return Number.isNaN(ms) ? undefined : inRange(Math.floor(ms / 1000));
}

function inRange(seconds: number): number | undefined {
  return seconds > 0 && seconds <= maxSeconds ? seconds : undefined;
}
