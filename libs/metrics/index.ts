// @trove/metrics: the process's Prometheus registry and every Trove metric (prom-client).
export { registry, collectProcessMetrics, scrape, SampledGauge, sampleFailures, type Sample } from "./registry.ts";
export * from "./catalogue.ts";
