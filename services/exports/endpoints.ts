// Bus subject -> handler for every operation the contract gives the exports service.
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { HandlerTable } from "@trove/host";
import type { ExportsService } from "./exports.service.ts";
import type { ImportsService } from "./imports.service.ts";

export interface ExportsDomain {
  exports: ExportsService;
  imports: ImportsService;
}

const who = (c: Caller | null): Caller => {
  if (!c) throw new AppError("unauthorized", "no caller");
  return c;
};

export const exportsEndpoints = (d: ExportsDomain): HandlerTable<"exports"> => ({
  createExport: ({ body }, ctx) => d.exports.create(who(ctx.caller), body),
  listExports: ({ query }, ctx) => d.exports.list(who(ctx.caller), query.limit ?? 20, query.offset ?? 0),
  getExport: ({ params }, ctx) => d.exports.get(who(ctx.caller), params.jobId),
  downloadExport: ({ params }, ctx) => d.exports.download(who(ctx.caller), params.jobId),
  createImport: ({ query, body }, ctx) => d.imports.create(who(ctx.caller), query, body),
  listImports: ({ query }, ctx) => d.imports.list(who(ctx.caller), query.limit ?? 20, query.offset ?? 0),
  getImport: ({ params, query }, ctx) => d.imports.get(who(ctx.caller), params.jobId, query.limit ?? 100, query.offset ?? 0),
});
