// Reading a Trove process's admin server as a monitoring system would: GET /metrics parsed from the Prometheus
// text format, so a test asks for a family or a sample by name and labels.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  text: string;
  samples: Sample[];
  /** Families declared (`# TYPE` lines), whether or not they have samples yet. */
  families: Set<string>;
  /** The sum of the samples of `name` whose labels include `labels` (0 when there are none). */
  value(name: string, labels?: Record<string, string>): number;
  /** The samples of `name` whose labels include `labels`. */
  series(name: string, labels?: Record<string, string>): Sample[];
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Scrape {
  const samples: Sample[] = [];
  const families = new Set<string>();
  for (const line of text.split("\n")) {
    if (line.startsWith("# TYPE ")) families.add(line.split(" ")[2]!);
    if (line === "" || line.startsWith("#")) continue;
    const m = sampleLine.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? "").matchAll(labelPair)) labels[k!] = v!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  const series = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return { text, samples, families, series, value: (name, labels) => series(name, labels).reduce((sum, s) => sum + s.value, 0) };
}

/** GET <adminUrl>/metrics, parsed; fails on any status but 200. */
export async function scrapeMetrics(adminUrl: string): Promise<Scrape> {
  const res = await fetch(`${adminUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${await res.text()}`);
  return parseMetrics(await res.text());
}
