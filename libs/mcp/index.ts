export { ApiError, TroveApi, seg, type Send } from "./api.ts";
export { createTroveMcpServer, serverInfo } from "./server.ts";
export { MAX_RESULT_BYTES } from "./results.ts";
