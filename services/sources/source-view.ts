// How a source is shown: the compact status manifest by default, settings and masked config with
// include=settings, everything (full config, cursors) with include=sensitive; and who may ask for which.
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { SourceRow } from "./sources.repository.ts";

export type SourceInclude = "settings" | "sensitive" | undefined;

/** Refuses a view the key may not see: settings not to read-only keys, sensitive only to personal keys. */
export function checkInclude(caller: Caller, include: SourceInclude): void {
  if (include === "sensitive" && caller.keyKind !== "personal") {
    throw new AppError("forbidden", "include=sensitive needs a personal key");
  }
  if (include === "settings" && caller.access === "read_only") {
    throw new AppError("forbidden", "read-only keys cannot view source settings");
  }
}

export function sourceOf(row: SourceRow, include: SourceInclude = undefined) {
  const manifest = {
    id: row.id,
    type: row.type,
    name: row.name,
    status: row.status,
    pollEveryMin: row.poll_every_min,
    nextPollAt: row.next_poll_at,
    lastRunAt: row.last_run_at,
    lastSuccessAt: row.last_success_at,
    lastError: row.last_error,
    consecutiveFailures: row.consecutive_failures,
    target: include === "sensitive" ? row.target : maskUrl(row.target),
    inboxAddress: row.inbox_address,
    itemCount: Number(row.item_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (include === undefined) return manifest;
  if (include === "settings") return { ...manifest, settings: row.settings, config: masked(row.config) };
  return { ...manifest, settings: row.settings, config: row.config, cursors: row.cursors };
}

/** Query parameters that carry credentials in feed addresses (private feeds put their token there). */
const secretParam = /token|key|secret|pass|auth|sig|session|credential|code/i;

/** A URL with the values of credential-like query parameters replaced by "***"; other strings as they are. */
export function maskUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return value;
  let changed = false;
  for (const name of [...new Set(url.searchParams.keys())]) {
    if (secretParam.test(name)) {
      url.searchParams.set(name, "***");
      changed = true;
    }
  }
  return changed ? url.href : value;
}

function masked(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) out[k] = typeof v === "string" ? maskUrl(v) : v;
  return out;
}
