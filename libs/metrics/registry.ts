// The process's one Prometheus registry. Counters and histograms are written where the work happens; gauges of
// state kept elsewhere (a queue's depth, a consumer's lag) are sampled when the registry is scraped, from the
// sources each running host adds (several hosts share the process in tests: the last one to answer a label wins).
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";

export const registry = new Registry();

/**
 * Process metrics prom-client collects that mean nothing under Bun: heap spaces (all zero), the heap's total (Bun
 * reports less than the heap in use; the heap in use and external memory are kept, set below), the data segment
 * (`process_heap_bytes`: address space the runtime reserves, gigabytes never used), active handles, requests and
 * resources (Bun does not report them), garbage collections (never observed under Bun), and Node's version (Bun
 * reports a Node version it resembles, not what runs). Of the event-loop delay, the minimum, mean and deviation read
 * garbage (9e9 s, NaN) for an interval without a sample; its maximum and percentiles read 0 then, and are kept.
 */
const meaningless = [
  "nodejs_heap_size_total_bytes",
  "nodejs_heap_size_used_bytes",
  "nodejs_external_memory_bytes",
  "process_heap_bytes",
  "nodejs_heap_space_size_total_bytes",
  "nodejs_heap_space_size_used_bytes",
  "nodejs_heap_space_size_available_bytes",
  "nodejs_active_handles",
  "nodejs_active_handles_total",
  "nodejs_active_requests",
  "nodejs_active_requests_total",
  "nodejs_active_resources",
  "nodejs_active_resources_total",
  "nodejs_gc_duration_seconds",
  "nodejs_eventloop_lag_min_seconds",
  "nodejs_eventloop_lag_mean_seconds",
  "nodejs_eventloop_lag_stddev_seconds",
  "nodejs_version_info",
];

let defaultsStarted = false;

/**
 * Starts collecting process metrics (CPU, resident memory, heap, file descriptors, event loop delay). Called by
 * whoever serves the registry, so that threads and processes that never serve it (worker threads load the libs
 * too) start no event-loop monitor.
 */
export function collectProcessMetrics(): void {
  if (defaultsStarted) return;
  defaultsStarted = true;
  collectDefaultMetrics({ register: registry });
  for (const name of meaningless) registry.removeSingleMetric(name);
  // prom-client sets these two from the heap total's collect, removed above: the same names, read on their own.
  new Gauge({
    name: "nodejs_heap_size_used_bytes",
    help: "JavaScript heap in use, in bytes (process.memoryUsage().heapUsed; under Bun it includes memory the heap's objects hold outside it).",
    registers: [registry],
    collect() {
      this.set(process.memoryUsage().heapUsed);
    },
  });
  new Gauge({
    name: "nodejs_external_memory_bytes",
    help: "Memory held outside the JavaScript heap by its objects (buffers), in bytes (process.memoryUsage().external).",
    registers: [registry],
    collect() {
      this.set(process.memoryUsage().external);
    },
  });
}

/** The registry's text exposition and its content type. */
export async function scrape(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

export const sampleFailures = new Counter({
  name: "trove_metrics_sample_failures_total",
  help: "Gauges that could not be sampled at a scrape (their source failed or took longer than 5 s), by metric.",
  labelNames: ["metric"] as const,
  registers: [registry],
});

/** How long one source may take at a scrape; a slower one is left out of that scrape. */
const sampleTimeoutMs = 5_000;

type SetValue<L extends string> = (labels: Partial<Record<L, string>>, value: number) => void;
/** Reads the current values of a sampled gauge and sets them, one call per label set. */
export type Sample<L extends string> = (set: SetValue<L>) => Promise<void> | void;

/** A gauge read when scraped: each running host adds a source (and removes it when it stops). */
export class SampledGauge<L extends string> {
  private readonly sources = new Set<Sample<L>>();
  readonly name: string;

  constructor(opts: { name: string; help: string; labelNames: readonly L[] }) {
    this.name = opts.name;
    const sources = this.sources;
    const name = opts.name;
    new Gauge<L>({
      ...opts,
      registers: [registry],
      async collect() {
        this.reset();
        await Promise.all(
          [...sources].map(async (source) => {
            let open = true;
            let timer: ReturnType<typeof setTimeout> | undefined;
            const late = new Promise<void>((_, reject) => {
              timer = setTimeout(() => reject(new Error("timed out")), sampleTimeoutMs);
            });
            try {
              await Promise.race([source((labels, value) => open && this.set(labels, value)), late]);
            } catch {
              sampleFailures.inc({ metric: name });
            } finally {
              // A source that answers after its deadline sets nothing (its values would land in the next scrape).
              open = false;
              clearTimeout(timer);
            }
          }),
        );
      },
    });
  }

  /** Adds a source; the function returned removes it. */
  add(source: Sample<L>): () => void {
    this.sources.add(source);
    return () => void this.sources.delete(source);
  }
}
