// POST /mcp: the Trove MCP server over Streamable HTTP, for agents that reach Trove over the network. It is
// stateless (a fresh server per request, JSON answers, no session to keep), so any gateway replica answers any
// call. The request went through the gateway's bearer auth and rate limit like any REST call; each tool then calls
// the REST API through the gateway's own handler with the caller's Authorization header, so the key's
// permissions, scope and quotas apply unchanged. Those inner calls are not counted again against the rate limit.
import { AppError } from "@trove/errors";
import type { Caller } from "@trove/contracts";

// The MCP SDK and Trove's tools are imported on the first /mcp call: tens of MB of a small machine's memory that a
// library nobody's agent calls never needs.
const loadMcp = async () => {
  const [{ WebStandardStreamableHTTPServerTransport }, { createTroveMcpServer, TroveApi }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("@trove/mcp"),
  ]);
  return { WebStandardStreamableHTTPServerTransport, createTroveMcpServer, TroveApi };
};
let mcpModules: ReturnType<typeof loadMcp> | undefined;

export const mcpPath = "/mcp";

export interface McpDeps {
  /** The gateway's own request handler (the app's `handle`). */
  handle: (request: Request) => Promise<Response>;
  /** Requests made by tools on behalf of an /mcp call: authenticated as usual, not rate limited again. */
  internal: WeakSet<Request>;
}

export function mcpHandler(deps: McpDeps) {
  return async (ctx: { request: Request; body: unknown; caller: Caller | null; set: { headers: Record<string, unknown> } }): Promise<Response> => {
    const { request } = ctx;
    const authorization = request.headers.get("authorization");
    if (!ctx.caller || !authorization) {
      throw new AppError("unauthorized", authorization ? "the API key is invalid or revoked" : "send Authorization: Bearer <API key>");
    }
    const { WebStandardStreamableHTTPServerTransport, createTroveMcpServer, TroveApi } = await (mcpModules ??= loadMcp());
    const api = new TroveApi(new URL(request.url).origin, authorization, (inner) => {
      deps.internal.add(inner);
      return deps.handle(inner);
    });
    const server = createTroveMcpServer(api);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(request, request.method === "POST" ? { parsedBody: ctx.body } : undefined);
      // The gateway's headers (request id, rate limit, API version) on the transport's answer.
      const headers = new Headers(response.headers);
      for (const [name, value] of Object.entries(ctx.set.headers)) if (typeof value === "string") headers.set(name, value);
      return new Response(await response.arrayBuffer(), { status: response.status, headers });
    } finally {
      await server.close();
    }
  };
}
