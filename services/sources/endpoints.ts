// Bus subject -> handler for every operation the contract gives the sources service.
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { HandlerTable } from "@trove/host";
import type { MessagesService } from "./messages.service.ts";
import type { OpmlService } from "./opml.service.ts";
import type { SourcesService } from "./sources.service.ts";

const who = (c: Caller | null): Caller => {
  if (!c) throw new AppError("unauthorized", "no caller");
  return c;
};

export const sourcesEndpoints = (sources: SourcesService, opml: OpmlService, mail: MessagesService): HandlerTable<"sources"> => ({
  listSources: ({ query }, ctx) =>
    sources.list(who(ctx.caller), { include: query.include, type: query.type, limit: query.limit ?? 200, offset: query.offset ?? 0 }),
  getSource: ({ params, query }, ctx) => sources.get(who(ctx.caller), params.id, query.include),
  createSource: ({ body }, ctx) => sources.create(who(ctx.caller), body),
  deleteSource: ({ params }, ctx) => sources.delete(who(ctx.caller), params.id),
  pauseSource: ({ params }, ctx) => sources.pause(who(ctx.caller), params.id),
  resumeSource: ({ params }, ctx) => sources.resume(who(ctx.caller), params.id),
  updateSourceSettings: ({ params, body }, ctx) => sources.updateSettings(who(ctx.caller), params.id, body),
  setSourceDefaultTags: ({ params, body }, ctx) => sources.updateSettings(who(ctx.caller), params.id, { defaultTags: body.tags }),
  setSourceRollup: ({ params, body }, ctx) => sources.updateSettings(who(ctx.caller), params.id, { rollupEnabled: body.enabled }),
  importOpml: ({ body }, ctx) => opml.import(who(ctx.caller), body),
  exportOpml: (_input, ctx) => opml.export(who(ctx.caller)),
  listSourceEvents: ({ params, query }, ctx) => sources.events(who(ctx.caller), params.id, query.limit ?? 50, query.offset ?? 0),
  listSourceMessages: ({ params, query }, ctx) => mail.list(who(ctx.caller), params.id, query.limit ?? 50, query.offset ?? 0),
  getSourceConfirmation: ({ params }, ctx) => mail.confirmation(who(ctx.caller), params.id),
});
