#!/usr/bin/env bun
// trove-mcp: the Trove MCP server over stdio, for MCP clients that start a local process. It acts with one API
// key against a running Trove: TROVE_URL (default http://127.0.0.1:8080) and TROVE_API_KEY. Logs go to stderr;
// stdout carries the protocol alone.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { TroveApi } from "./api.ts";
import { createTroveMcpServer } from "./server.ts";

const url = process.env.TROVE_URL ?? "http://127.0.0.1:8080";
const key = process.env.TROVE_API_KEY;
if (!key) {
  process.stderr.write("trove-mcp: set TROVE_API_KEY to a Trove API key (and TROVE_URL to the server, default http://127.0.0.1:8080)\n");
  process.exit(2);
}
try {
  new URL(url);
} catch {
  process.stderr.write(`trove-mcp: TROVE_URL is not a URL: ${url}\n`);
  process.exit(2);
}

const server = createTroveMcpServer(new TroveApi(url, `Bearer ${key}`));
await server.connect(new StdioServerTransport());
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
