// Bus subject -> handler for every operation the contract gives the items service.
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { HandlerTable } from "@trove/host";
import { ItemsService, parseStatuses } from "./items.service.ts";
import { parseTime } from "./time.ts";

const caller = (c: Caller | null): Caller => {
  if (!c) throw new AppError("unauthorized", "no caller");
  return c;
};

export const itemsEndpoints = (items: ItemsService): HandlerTable<"items"> => ({
  me: (_in, ctx) => items.usage(caller(ctx.caller)),
  ingest: ({ body }, ctx) => items.ingest(caller(ctx.caller), body),
  getItem: ({ params }, ctx) => items.get(caller(ctx.caller), params.id),
  listItems: ({ query }, ctx) =>
    items.list(
      caller(ctx.caller),
      {
        since: parseTime("since", query.since),
        until: parseTime("until", query.until),
        statuses: parseStatuses(query.status),
        source: query.source,
        limit: query.limit ?? 200,
        offset: query.offset ?? 0,
      },
      query.include === "content",
    ),
});
