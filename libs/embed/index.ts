// @trove/embed: text embeddings for semantic search. The Embedder seam and the default model on the worker pool
// (embedder.ts, task.ts), and how a document becomes the texts to embed (chunk.ts).
export { poolEmbedder, batches, embedDefaults, type Embedder, type PoolEmbedderOptions } from "./embedder.ts";
export { EmbedError, isEmbedErrorReason, type EmbedErrorReason } from "./error.ts";
export { embedTask, embedTaskName, embedLimits, checkEmbedInput, makeEmbedTask, modelId, modelDimension, type EmbedTaskInput, type LoadedModel } from "./task.ts";
export { chunkDocument, chunkDefaults, plainText, clamp, type Chunk, type ChunkOptions } from "./chunk.ts";
