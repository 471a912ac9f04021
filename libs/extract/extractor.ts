// Extraction off the event loop: each page runs as the "extract" task of the process's worker pool, with a
// deadline. Callers get what extractHtml/extractText give, an Extraction or an ExtractError, asynchronously; the
// pool's own failures become ExtractErrors too (extract_timeout, extract_busy, extract_failed).
import { extractionDuration, secondsSince } from "@trove/metrics";
import { PoolBusyError, TaskFailedError, WorkerTimeoutError, type WorkerPool } from "@trove/workers";
import { ExtractError, isExtractErrorReason } from "./error.ts";
import { extractTaskName, type ExtractTaskInput } from "./task-input.ts";
import type { ExtractOptions, Extraction } from "./types.ts";

export interface Extractor {
  /** As extractHtml, in a worker thread. */
  html(body: string, opts: ExtractOptions): Promise<Extraction>;
  /** As extractText, in a worker thread. */
  text(body: string, opts: ExtractOptions): Promise<Extraction>;
}

export interface ExtractorLimits {
  /** How long one page may take once a worker has it; past it the worker is stopped: extract_timeout. */
  deadlineMs: number;
}

/** An extractor that runs every page on `pool` (whose worker script serves extractTask). */
export function poolExtractor(pool: Pick<WorkerPool, "run">, limits: ExtractorLimits): Extractor {
  const run = async (kind: ExtractTaskInput["kind"], body: string, opts: ExtractOptions): Promise<Extraction> => {
    const input: ExtractTaskInput = { kind, body, opts };
    const started = performance.now();
    let outcome = "ok";
    try {
      return await pool.run<Extraction>(extractTaskName, input, { deadlineMs: limits.deadlineMs });
    } catch (err) {
      const failure = asExtractError(err);
      outcome = failure.reason;
      throw failure;
    } finally {
      extractionDuration.observe({ kind, outcome }, secondsSince(started));
    }
  };
  return { html: (body, opts) => run("html", body, opts), text: (body, opts) => run("text", body, opts) };
}

function asExtractError(err: unknown): ExtractError {
  if (err instanceof TaskFailedError && err.errorName === "ExtractError" && isExtractErrorReason(err.data.reason)) {
    return new ExtractError(err.data.reason, err.message);
  }
  if (err instanceof WorkerTimeoutError) {
    return new ExtractError("extract_timeout", `extract_timeout: the page took longer than ${err.deadlineMs} ms to extract`);
  }
  if (err instanceof PoolBusyError) {
    return new ExtractError("extract_busy", "extract_busy: too many pages are waiting to be extracted; save it again later");
  }
  return new ExtractError("extract_failed", `extract_failed: ${err instanceof Error ? err.message : String(err)}`);
}
