// Embedding benchmark: the default embedder (@trove/embed: energetic-ai embeddings-en, 512-d) as the services run
// it, on the process's worker pool (libs/host/tasks.ts, TROVE_EXTRACT_WORKERS threads, one per core by default),
// over realistic chunks: the shared corpus's pages, extracted, then cut by chunkDocument with its defaults.
// Reports the cold start of a worker (thread start + model load + first text) and the memory each worker adds,
// throughput in chunks per second with every worker busy (median of passes), and the latency of embedding one
// short query while nothing else runs (what a semantic search adds before its SQL).
//
//   TROVE_CORPUS_DIR=/work/shared/corpus bun run bench:embed           print the results
//   TROVE_CORPUS_DIR=/work/shared/corpus bun run bench:embed --write   also replace "## Embeddings" in docs/benchmarks.md
import { parseConfig } from "../libs/config/index.ts";
import { chunkDefaults, chunkDocument, embedDefaults, modelId, poolEmbedder, type Chunk } from "../libs/embed/index.ts";
import { extractHtml } from "../libs/extract/index.ts";
import { WorkerPool } from "../libs/workers/index.ts";
import { corpusPages } from "./library.ts";
import { machineLine, quantile, today, writeSection } from "./report.ts";

const PASSES = Number(process.env.BENCH_PASSES ?? 3);
const MAX_CHUNKS = Number(process.env.BENCH_CHUNKS ?? 384);
const QUERIES = 40;
const script = new URL("../libs/host/tasks.ts", import.meta.url);
const size = parseConfig(process.env).extractWorkers;
const machine = await machineLine();

const rssMiB = () => process.memoryUsage().rss / 2 ** 20;
Bun.gc(true);
const rssBefore = rssMiB();

// Memory and cold start first, before the corpus's pages fill the main thread's heap.
// Cold start, one worker alone: the thread, TensorFlow's WASM backend, the weights, the first text.
const single = new WorkerPool({ script, size: 1 });
const t0 = performance.now();
await poolEmbedder(single, { deadlineMs: 120_000 }).embed(["warm-up"]);
const coldOne = performance.now() - t0;
const t1 = performance.now();
await poolEmbedder(single, { deadlineMs: 120_000 }).embed(["warm-up again"]);
const warmOne = performance.now() - t1;
const rssOneWorker = rssMiB() - rssBefore;
await single.close();
Bun.gc(true);

// The pool as the services have it: every worker cold-started at once.
const pool = new WorkerPool({ script, size });
const embedder = poolEmbedder(pool, { deadlineMs: 120_000 });
const t2 = performance.now();
await Promise.all(Array.from({ length: size }, (_, i) => embedder.embed([`warm-up ${i}`])));
const coldAll = performance.now() - t2;
const rssPoolWarm = rssMiB();

// Realistic chunks: every page extracted and chunked, then every k-th chunk of them all, so that the sample has
// titles, openings and deep windows in the proportions a library has.
const perDoc: Chunk[][] = [];
for (const page of corpusPages(1_000)) {
  try {
    const ex = extractHtml(page.html, { url: page.url });
    perDoc.push(chunkDocument({ title: ex.title, body: ex.markdown }));
  } catch {
    // A page extraction refuses is not a document.
  }
}
const allChunks = perDoc.flat();
const stride = Math.max(1, allChunks.length / MAX_CHUNKS);
const texts: string[] = [];
for (let i = 0; i < allChunks.length && texts.length < MAX_CHUNKS; i += stride) texts.push(allChunks[Math.floor(i)]!.text);
const words = (t: string) => t.split(" ").length;
const docChunks = perDoc.map((d) => d.length).sort((a, b) => a - b);
const sampleWords = texts.map(words);
const sampleChars = texts.reduce((n, t) => n + t.length, 0);
console.log(`${perDoc.length} documents -> ${allChunks.length} chunks; benchmarking ${texts.length} of them, ${PASSES} passes, ${size} workers`);

// Throughput: the whole sample in one call, batched (embedDefaults) and spread over the workers.
const passes: number[] = [];
for (let i = 0; i < PASSES; i++) {
  const start = performance.now();
  const vectors = await embedder.embed(texts);
  passes.push(performance.now() - start);
  if (vectors.length !== texts.length) throw new Error("lost vectors");
}
const sortedPasses = [...passes].sort((a, b) => a - b);
const medianPass = quantile(sortedPasses, 0.5);
const chunksPerSec = (texts.length / medianPass) * 1000;

// One short query at a time, nothing else running.
const queries = ["car", "how do vaccines work", "history of the printing press", "best practices for database indexing", "climate change and coral reefs"];
const latencies: number[] = [];
for (let i = 0; i < QUERIES; i++) {
  const start = performance.now();
  await embedder.embed([`${queries[i % queries.length]} ${i}`]);
  latencies.push(performance.now() - start);
}
latencies.sort((a, b) => a - b);
const rssAfter = rssMiB();
await pool.close();

const f0 = (x: number) => x.toFixed(0);
const table = [
  "| measure | value |",
  "|---|---:|",
  `| cold start of one worker (thread + model load + first text) | ${f0(coldOne)} ms |`,
  `| then one short text on that warm worker | ${f0(warmOne)} ms |`,
  `| cold start of the pool (${size} workers at once) | ${f0(coldAll)} ms |`,
  `| process RSS before any worker (main thread, modules loaded) | ${f0(rssBefore)} MiB |`,
  `| RSS one worker adds (model loaded, one text embedded) | ${f0(rssOneWorker)} MiB |`,
  `| process RSS with the ${size} workers warm, corpus not yet loaded | ${f0(rssPoolWarm)} MiB |`,
  `| **throughput, ${size} workers, batches of ${embedDefaults.batchTexts}** | **${chunksPerSec.toFixed(1)} chunks/s** (${((sampleChars / medianPass) * 1000 / 1024).toFixed(0)} KiB of text/s) |`,
  `| one short query, p50 / p95 (${QUERIES} queries, one at a time) | ${latencies[Math.floor(QUERIES / 2)]!.toFixed(0)} / ${quantile(latencies, 0.95).toFixed(0)} ms |`,
  `| process RSS after the passes (corpus pages and chunks in the main thread) | ${f0(rssAfter)} MiB |`,
].join("\n");
const sample =
  `${perDoc.length} corpus pages (bench/library.ts corpusPages) extracted and chunked with the defaults ` +
  `(${chunkDefaults.windowWords}-word windows, ${chunkDefaults.overlapWords} overlap, at most ${chunkDefaults.maxChunks} chunks): ` +
  `${allChunks.length} chunks, ${quantile(docChunks, 0.5)} per page at the median, ${docChunks.at(-1)} at most. ` +
  `The sample is ${texts.length} of them taken at an even stride over all (titles and windows in the corpus's proportions), ` +
  `${quantile([...sampleWords].sort((a, b) => a - b), 0.5)} words per chunk at the median, ${(sampleChars / 1024).toFixed(0)} KiB in all.`;
const meanChunks = allChunks.length / perDoc.length;
const projection =
  `At ${meanChunks.toFixed(1)} chunks per page, embedding a library of 100k such pages takes ` +
  `${((100_000 * meanChunks) / chunksPerSec / 3600).toFixed(1)} hours of both cores at this rate, and 10k pages ` +
  `${((10_000 * meanChunks) / chunksPerSec / 60).toFixed(0)} minutes: index maintenance must stay in the background, ` +
  "and a model change re-embeds for that long. The model's cost is per token, nearly linear (batches of 16 save " +
  "about a third against one text per task); the load average at the start says how much other work shared the cores.";
const passesLine = `Passes: ${passes.map(f0).join(", ")} ms (median kept).`;
console.log(`\n${sample}\n\n${table}\n\n${projection}\n\n${passesLine}\n${machine}`);

if (process.argv.includes("--write")) {
  await writeSection(
    "Embeddings",
    `## Embeddings (${today()})

Command: \`TROVE_CORPUS_DIR=/work/shared/corpus bun run bench:embed\` (\`--write\` rewrites this section). Model
\`${modelId}\` (512 dimensions) on the worker pool (\`libs/host/tasks.ts\`, ${size} workers, one per core), texts
batched ${embedDefaults.batchTexts} per task. ${sample} One warm-up text per worker, then ${PASSES} passes over the
sample in one \`embed\` call.

${table}

${projection}

${passesLine}

${machine}
`,
  );
  console.log("wrote ## Embeddings to docs/benchmarks.md");
}
