// Time filters: Unix seconds or an ISO 8601 date, as Unix seconds.
import { AppError } from "@trove/errors";

export function parseTime(field: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const s = raw.trim();
  if (/^\d{1,12}$/.test(s)) return Number(s);
  if (/^\d{4}-\d{2}-\d{2}/.test(s)) {
    const ms = Date.parse(s);
    if (!Number.isNaN(ms)) return Math.floor(ms / 1000);
  }
  throw new AppError("validation_failed", `${field} must be Unix seconds or an ISO date`, {
    fields: { [field]: "expected Unix seconds or an ISO 8601 date" },
  });
}
