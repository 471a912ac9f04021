// The MCP tool call over Streamable HTTP (/mcp) beside the same REST call, on the embedded deployment (`bun run
// start`) holding real saved pages: per operation, the latency of one call at a time and the throughput of 8 at
// once. The gap is the MCP layer: JSON-RPC framing, a server built per request, the tool's own API call through
// the gateway's handler, and the answer's compaction.
//   bun run bench:mcp            print the table
//   bun run bench:mcp --write    also replace "## MCP tool calls beside REST" in docs/benchmarks.md
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { aliceKey } from "@trove/testing";
import { call } from "./api.ts";
import { machineLine, quantile, today, writeSection } from "./report.ts";
import { measuringEnv, startEmbedded } from "./topology.ts";
import { loadSnippetPages, snippetDir } from "../libs/extract/test/snippets.ts";

const SAVED = 300;
const SEQUENTIAL = 300;
const PARALLEL = 8;
const PARALLEL_CALLS = 800;

const none = { databaseUrl: "", natsUrl: "", prefix: "benchmcp", how: "none (embedded)", stop: async () => {} };
const trove = await startEmbedded(none, measuringEnv, "mcp");
try {
  // Real pages when the shared corpus is here; otherwise generated articles of a few KB.
  const dir = snippetDir();
  const corpus = dir ? loadSnippetPages(dir).slice(0, SAVED) : [];
  const ids: string[] = [];
  for (let i = 0; i < SAVED; i++) {
    const html = corpus[i]?.html ?? `<html><head><title>Report ${i}</title></head><body><article><h1>Report ${i}</h1>${"<p>The council met to discuss the river crossing, the budget and the schedule for the coming years.</p>".repeat(40)}</article></body></html>`;
    ids.push((await call(trove.url, "POST", "/api/ingest", { url: `https://bench-${i}.example.test/`, html, source: "bench" })).id);
  }

  const connect = async () => {
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${trove.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${aliceKey}` } } }));
    return client;
  };
  const client = await connect();
  const rest = (path: string) => fetch(trove.url + path, { headers: { authorization: `Bearer ${aliceKey}` } }).then((r) => r.text());
  const tool = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

  const ops: { name: string; mcp: (i: number) => Promise<unknown>; rest: (i: number) => Promise<unknown> }[] = [
    { name: "read an item's overview", mcp: (i) => tool("read_item", { id: ids[i % ids.length] }), rest: (i) => rest(`/api/items/${ids[i % ids.length]}/read?view=overview`) },
    { name: "read 80 lines of an item", mcp: (i) => tool("read_item", { id: ids[i % ids.length], view: "lines", lines: "1:80" }), rest: (i) => rest(`/api/items/${ids[i % ids.length]}/read?view=lines&lines=1:80`) },
    { name: "list 20 items", mcp: () => tool("list_items", { limit: 20 }), rest: () => rest("/api/items?limit=20") },
    { name: "search (10 results)", mcp: () => tool("search", { q: "the", limit: 10 }), rest: () => rest("/api/search?q=the&limit=10") },
  ];

  const timed = async (run: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < 20; i++) await run(i); // warm-up
    const ms: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      const t = performance.now();
      await run(i);
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: PARALLEL }, async () => {
      for (let i = next++; i < PARALLEL_CALLS; i = next++) await run(i);
    }));
    return { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), perSecond: PARALLEL_CALLS / ((performance.now() - started) / 1000) };
  };

  const rows: string[] = [];
  for (const op of ops) {
    const r = await timed(op.rest);
    const m = await timed(op.mcp);
    rows.push(`| ${op.name} | ${r.p50.toFixed(2)} / ${r.p95.toFixed(2)} ms | ${m.p50.toFixed(2)} / ${m.p95.toFixed(2)} ms | +${(m.p50 - r.p50).toFixed(2)} ms | ${r.perSecond.toFixed(0)} | ${m.perSecond.toFixed(0)} |`);
    console.log(rows.at(-1));
  }
  await client.close();

  const section = [
    `## MCP tool calls beside REST (${today()})`,
    "",
    `\`bun run bench:mcp\`: the embedded deployment (\`bun run start\`) holding ${SAVED} saved pages (${corpus.length ? "the first of the shared snippet corpus" : "generated articles"}); each operation ${SEQUENTIAL} times one at a time (after 20 warm-up calls), then ${PARALLEL_CALLS} calls ${PARALLEL} at a time, once as the REST request and once as the MCP tool call over Streamable HTTP at \`/mcp\` (SDK client, one session). Latency p50 / p95 of one call; throughput in calls per second.`,
    "",
    "| operation | REST | MCP tool | MCP overhead (p50) | REST calls/s, 8 at once | MCP calls/s, 8 at once |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows,
    "",
    "The MCP call carries JSON-RPC framing, builds a server per request (stateless /mcp), makes the same REST call through the gateway's own handler and compacts the answer; the client shares the machine.",
    "",
    await machineLine(),
  ].join("\n");
  console.log(`\n${section}`);
  if (process.argv.includes("--write")) await writeSection("MCP tool calls beside REST", section);
} finally {
  await trove.stop();
}
