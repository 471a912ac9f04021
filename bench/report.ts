// Writes one `## <Title> (date)` section of docs/benchmarks.md, replacing the section of that title if present.
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { repoRoot } from "@trove/testing";

export async function writeSection(title: string, section: string): Promise<void> {
  const file = join(repoRoot, "docs", "benchmarks.md");
  const current = await Bun.file(file).text().catch(() => "# Benchmarks\n\n");
  const escaped = title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const re = new RegExp(`^## ${escaped}(?: \\(\\d{4}-\\d{2}-\\d{2}\\))?\\n[\\s\\S]*?(?=\\n## |$(?![\\s\\S]))`, "m");
  const body = section.trimEnd() + "\n";
  await Bun.write(file, re.test(current) ? current.replace(re, body) : `${current.trimEnd()}\n\n${body}`);
}

/** The machine line every section carries. */
export async function machineLine(): Promise<string> {
  const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
  return `Machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Bun ${Bun.version}; load average at start ${load}.`;
}

export const today = () => new Date().toISOString().slice(0, 10);

/** The q-quantile of sorted numbers. */
export const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
