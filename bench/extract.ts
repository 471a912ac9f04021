// Extraction benchmark: Trove's pipeline (@trove/extract: linkedom + cleaning + Readability + turndown) against
// the pipeline peers use (jsdom + Readability + turndown with the same GFM plugin, no extra cleaning), on the
// real pages of ../shared/corpus. Speed is corpus passes timed after a warm-up pass, passes of the two pipelines
// interleaved so that load from other processes hits both alike; the median pass is reported as pages/s.
// Quality is scored by libs/extract/test/quality.ts, the same code the corpus test uses. Trove's pipeline is also
// timed as the services run it, on the worker pool (libs/host/tasks.ts, one worker per core): one page at a time
// (the cost of the hop to a worker thread) and all pages at once (throughput with every worker busy).
//
//   bun run bench/extract.ts            print the results
//   bun run bench/extract.ts --write    also replace the "## Extraction" section of docs/benchmarks.md
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { extractHtml, poolExtractor } from "../libs/extract/index.ts";
import { WorkerPool } from "../libs/workers/index.ts";
import { peerExtract } from "../libs/extract/test/peers.ts";
import { average, corpusDir, loadCorpus, score, type CorpusPage, type Score } from "../libs/extract/test/quality.ts";

const PASSES = Number(process.env.BENCH_PASSES ?? 5);

interface Result {
  markdown: string;
  title: string;
}
type Pipeline = (page: CorpusPage) => Result;

function trove(page: CorpusPage): Result {
  try {
    const ex = extractHtml(page.html, { url: page.url });
    return { markdown: ex.markdown, title: ex.title };
  } catch {
    return { markdown: "", title: "" };
  }
}

function peers(page: CorpusPage): Result {
  return peerExtract(page.html, page.url);
}

function pass(pipeline: Pipeline, pages: CorpusPage[]): number {
  const start = performance.now();
  for (const page of pages) pipeline(page);
  return performance.now() - start;
}

const workers = cpus().length;
// Read before anything runs: the one-minute load average says whether other work shares the cores.
const loadAtStart = loadavg()[0]!;
const pool = new WorkerPool({ script: new URL("../libs/host/tasks.ts", import.meta.url), size: workers });
const pooled = poolExtractor(pool, { deadlineMs: 120_000 });

async function poolPass(pages: CorpusPage[], atOnce: boolean): Promise<number> {
  const one = (page: CorpusPage) => pooled.html(page.html, { url: page.url }).catch(() => undefined);
  const start = performance.now();
  if (atOnce) await Promise.all(pages.map(one));
  else for (const page of pages) await one(page);
  return performance.now() - start;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: "utf8" }).trim();
  } catch {
    return "unavailable";
  }
}

const dir = corpusDir();
const pages = loadCorpus(dir);
if (pages.length === 0) {
  console.log(`SKIPPED extraction benchmark: ${dir} not found`);
  process.exit(0);
}
const bytes = pages.reduce((n, p) => n + Buffer.byteLength(p.html), 0);
const mib = (bytes / 1024 / 1024).toFixed(1);
console.log(`${pages.length} pages, ${mib} MiB of HTML; warm-up, then ${PASSES} passes each`);

const pipelines: [string, Pipeline][] = [
  ["Trove (linkedom + cleaning + Readability + turndown)", trove],
  ["peers (jsdom + Readability + turndown)", peers],
];

// Quality, and the warm-up pass.
const perPage: Score[][] = pipelines.map(([, run]) =>
  pages.map((page) => {
    const r = run(page);
    return score(r.markdown, r.title, page);
  }),
);
const quality = perPage.map(average);

await poolPass(pages, true); // warm-up: starts the workers
const times: number[][] = pipelines.map(() => []);
const poolTimes: { serial: number[]; atOnce: number[] } = { serial: [], atOnce: [] };
for (let i = 0; i < PASSES; i++) {
  for (const [k, [, run]] of pipelines.entries()) times[k]?.push(pass(run, pages));
  poolTimes.serial.push(await poolPass(pages, false));
  poolTimes.atOnce.push(await poolPass(pages, true));
}
await pool.close();

const rows = pipelines.map(([name], k) => {
  const ms = median(times[k] ?? []);
  const q = quality[k] ?? { recall: 0, precision: 0, titleAccuracy: 0 };
  return { name, ms, pps: (pages.length / ms) * 1000, ...q };
});
const [ours, theirs] = rows;
const speedup = ours && theirs ? theirs.ms / ours.ms : 0;

const cpuinfo = existsSync("/proc/cpuinfo") ? readFileSync("/proc/cpuinfo", "utf8") : "";
const cpuModel = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1];
const table = [
  "| pipeline | pages/s (median of passes) | ms per corpus pass | recall | precision | title accuracy |",
  "|---|---:|---:|---:|---:|---:|",
  ...rows.map(
    (r) =>
      `| ${r.name} | ${r.pps.toFixed(1)} | ${r.ms.toFixed(0)} | ${r.recall.toFixed(4)} | ${r.precision.toFixed(4)} | ` +
      `${(r.titleAccuracy * 100).toFixed(1)}% |`,
  ),
].join("\n");
const mem = sh("free", ["-g"]).split("\n")[1]?.trim().split(/\s+/) ?? [];
const machine = [
  `- nproc: ${sh("nproc", [])} (os.cpus: ${cpus().length}); CPU: ${cpuModel ?? "unknown"}`,
  `- memory (free -g): ${
    mem.length >= 7 ? `total ${mem[1]} GiB, used ${mem[2]}, free ${mem[3]}, available ${mem[6]}` : "unavailable"
  }`,
  `- bun ${Bun.version}; date ${new Date().toISOString()}`,
  loadAtStart > cpus().length / 2
    ? `- other work was running on the machine at the same time (load average ${loadAtStart.toFixed(2)} at the start); passes are interleaved and the median is kept`
    : `- nothing else ran on the machine (load average ${loadAtStart.toFixed(2)} at the start); passes are interleaved and the median is kept`,
].join("\n");
// Pages on which the two pipelines keep noticeably different text.
const gap = (x: number, y: number): boolean => Math.abs(x - y) > 0.005;
const differing = pages
  .map((page, i) => ({ site: page.site, a: perPage[0]?.[i], b: perPage[1]?.[i] }))
  .filter(({ a, b }) => !!a && !!b && (gap(a.recall, b.recall) || gap(a.precision, b.precision)));
const differences = differing.length
  ? [
      "| page | Trove recall | Trove precision | peers recall | peers precision |",
      "|---|---:|---:|---:|---:|",
      ...differing.map(
        ({ site, a, b }) =>
          `| ${site} | ${a?.recall.toFixed(3)} | ${a?.precision.toFixed(3)} | ` +
          `${b?.recall.toFixed(3)} | ${b?.precision.toFixed(3)} |`,
      ),
    ].join("\n")
  : "No page differs by more than 0.005 in recall or precision.";
const passes = rows.map((r, k) => `${r.name}: ${(times[k] ?? []).map((t) => t.toFixed(0)).join(", ")} ms`).join("; ");

const verdict = `Trove is ${speedup.toFixed(2)}x the speed of the peers' pipeline.`;
const pps = (ms: number): string => ((pages.length / ms) * 1000).toFixed(1);
const direct = ours?.ms ?? 0;
const poolRows: [string, number][] = [
  ["in the calling thread (`extractHtml`)", direct],
  ["worker pool, one page at a time", median(poolTimes.serial)],
  [`worker pool, all pages at once (${workers} workers)`, median(poolTimes.atOnce)],
];
const poolTable = [
  "| Trove's pipeline run | pages/s (median of passes) | ms per corpus pass |",
  "|---|---:|---:|",
  ...poolRows.map(([name, ms]) => `| ${name} | ${pps(ms)} | ${ms.toFixed(0)} |`),
].join("\n");
const poolPasses = `pool one at a time: ${poolTimes.serial.map((t) => t.toFixed(0)).join(", ")} ms; pool all at once: ${poolTimes.atOnce
  .map((t) => t.toFixed(0))
  .join(", ")} ms`;
console.log(`\n${table}\n\n${verdict}\n\n${poolTable}\n\n${differences}\n\n${machine}\n\nPasses: ${passes}; ${poolPasses}`);

if (process.argv.includes("--write")) {
  const section = `## Extraction (${new Date().toISOString().slice(0, 10)})

Command: \`bun run bench/extract.ts\` (\`--write\` rewrites this section). ${pages.length} pages of
\`shared/corpus/pages\` (${mib} MiB of HTML), one warm-up pass, then ${PASSES} timed passes
of each pipeline, interleaved; the median pass is reported. Quality is scored by
\`libs/extract/test/quality.ts\` against each page's \`expected.html\` (Readability's own output, so the peers'
pipeline is close to 1.0 by construction): bag-of-words recall and precision of the Markdown read back as text,
and the share of titles matching \`expected-metadata.json\` (normalised equality or word F1 >= 0.8).

${table}

Trove is **${speedup.toFixed(2)}x** the speed of the peers' pipeline (target: at least 2x).

The services run the same pipeline on the worker pool (\`libs/workers\`, one worker per core here), so that no page
holds the event loop. One page at a time shows the cost of the hop (the page and its result are copied between
threads); all pages at once, what the pool does with every worker busy:

${poolTable}

Pages where the two keep noticeably different text:

${differences}

Reading the numbers: the reference is Readability's own output, so any furniture Trove's cleaning removes and
Readability keeps counts against Trove's recall, while the peers' pipeline loses words only in conversion.
Trove's lower recall comes from such removals: newsletter prompts ("Sign up for our newsletter" on breitbart
and citylab-1) and the reader comments under firefox-nightly-blog, which Readability stops appending once the
sidebar and newsletter box around them are gone. Its lower precision on msn is the opposite effect: with the
ad and Taboola boxes removed, Readability appends a "Make MSN my homepage" dialog that only CSS hides. Trove
keeps more on dev418 and ietf-1, where article text such as \`<img>\` or \`<module>\` stays text; turndown
alone leaves it as raw HTML that a Markdown renderer drops. So the "equal or better text kept" target is
missed on the recall figure, by newsletter prompts and reader comments, not by article text.

${machine}

Passes: ${passes}; ${poolPasses}.
`;
  const path = join(import.meta.dir, "..", "docs", "benchmarks.md");
  const current = existsSync(path) ? readFileSync(path, "utf8") : "# Benchmarks\n";
  const start = current.search(/^## Extraction(?: \(\d{4}-\d{2}-\d{2}\))?\s*$/m);
  let next: string;
  if (start === -1) {
    next = `${current.trimEnd()}\n\n${section}`;
  } else {
    const rest = current.slice(start + 1);
    const end = rest.search(/^## /m);
    next = current.slice(0, start) + section + (end === -1 ? "" : `\n${rest.slice(end)}`);
  }
  writeFileSync(path, next.endsWith("\n") ? next : `${next}\n`);
  console.log(`\nwrote the Extraction section of ${path}`);
}
