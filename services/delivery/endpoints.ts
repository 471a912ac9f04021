// Bus subject -> handler for every operation the contract gives the delivery service.
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { HandlerTable } from "@trove/host";
import type { WebhooksService } from "./webhooks.service.ts";

const who = (c: Caller | null): Caller => {
  if (!c) throw new AppError("unauthorized", "no caller");
  return c;
};

export const deliveryEndpoints = (webhooks: WebhooksService): HandlerTable<"delivery"> => ({
  listWebhooks: ({ query }, ctx) => webhooks.list(who(ctx.caller), query.limit ?? 50, query.offset ?? 0),
  createWebhook: ({ body }, ctx) => webhooks.create(who(ctx.caller), body),
  getWebhook: ({ params }, ctx) => webhooks.get(who(ctx.caller), params.id),
  updateWebhook: ({ params, body }, ctx) => webhooks.update(who(ctx.caller), params.id, body),
  deleteWebhook: ({ params }, ctx) => webhooks.delete(who(ctx.caller), params.id),
  testWebhook: ({ params }, ctx) => webhooks.test(who(ctx.caller), params.id),
  rotateWebhookSecret: ({ params, body }, ctx) => webhooks.rotate(who(ctx.caller), params.id, body?.revokePrevious === true),
  listWebhookDeliveries: ({ params, query }, ctx) =>
    webhooks.listDeliveries(who(ctx.caller), params.id, { limit: query.limit ?? 50, offset: query.offset ?? 0, status: query.status }),
});
