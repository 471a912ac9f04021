// The registry as a scrape reads it: every family documented, sampled gauges that survive a broken source.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { collectProcessMetrics, registry, SampledGauge, scrape } from "./index.ts";

const doc = readFileSync(join(import.meta.dir, "..", "..", "docs", "metrics.md"), "utf8");

describe("the registry", () => {
  test("docs/metrics.md names every metric a scrape can show; none reads NaN", async () => {
    collectProcessMetrics();
    const names = registry.getMetricsAsArray().map((m) => m.name);
    expect(names.filter((n) => n.startsWith("trove_")).length).toBeGreaterThanOrEqual(16);
    const documented = (name: string) => doc.includes(`\`${name}\``) || (/^nodejs_eventloop_lag_(max|p50|p90|p99)_seconds$/.test(name) && doc.includes("`nodejs_eventloop_lag_max_seconds`"));
    expect(names.filter((n) => !documented(n))).toEqual([]);
    // Right after the collectors start, before any event-loop sample: nothing reads NaN or a sentinel.
    const samples = (await scrape()).body.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    expect(samples.filter((l) => /\s(nan|[0-9.]+e\+?\d{2,})$/i.test(l) || /\s9223372036/.test(l))).toEqual([]);
  });

  test("names carry their unit, and counters end in _total", () => {
    for (const m of registry.getMetricsAsArray().filter((m) => m.name.startsWith("trove_"))) {
      const type = (m as unknown as { type: string }).type;
      if (type === "counter") expect(m.name).toMatch(/_total$/);
      else expect(m.name).toMatch(/_(seconds|events|depth|position|tasks)$/);
    }
  });

  test("a sampled gauge shows what each source set; a source that fails is counted and the scrape still answers", async () => {
    const gauge = new SampledGauge({ name: "trove_test_sampled_items", help: "a gauge of this test", labelNames: ["source"] });
    const removeGood = gauge.add((set) => set({ source: "good" }, 7));
    const removeBad = gauge.add(async () => {
      throw new Error("the database is away");
    });
    try {
      const { body, contentType } = await scrape();
      expect(contentType).toContain("text/plain");
      expect(body).toContain('trove_test_sampled_items{source="good"} 7');
      // The failure counter is written before the gauges are read: the next scrape shows it.
      expect((await scrape()).body).toMatch(/trove_metrics_sample_failures_total\{metric="trove_test_sampled_items"\} [1-9]/);
      removeGood();
      // A removed source's values go with it at the next scrape.
      expect((await scrape()).body).not.toContain('trove_test_sampled_items{source="good"}');
    } finally {
      removeBad();
      registry.removeSingleMetric("trove_test_sampled_items");
    }
  });
});
