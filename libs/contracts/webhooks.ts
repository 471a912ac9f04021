// Webhook management (the delivery service): endpoints, their signing secrets, test deliveries and the delivery log.
// Decisions behind these shapes: docs/decisions.md, "Webhooks".
import { t } from "elysia";
import { eventTypes } from "./events.ts";
import { op } from "./operation.ts";
import { Count, Id, IdParams, Int4, Limit, maxInt53, Offset } from "./schemas.ts";

/** Unix milliseconds: every timestamp of the webhook area (endpoints and deliveries alike). */
const Millis = (description = "Unix milliseconds") => t.Integer({ minimum: 0, maximum: maxInt53, description });

// An enum, not a union of literals: Elysia would turn a lone string into a one-element array for the latter.
const EventTypeFilter = t.UnionEnum(["*", ...eventTypes], {
  description: '"*" (every type, including types added later) or one of the event types',
});
const EventTypes = t.Array(EventTypeFilter, {
  minItems: 1,
  maxItems: 20,
  description: '["*"] for all events, or a subset of the event types; "*" stands alone',
});

const Slug = t.String({ minLength: 1, maxLength: 80, pattern: "^[a-z0-9-]+$" });
export const ResourceScope = t.Nullable(
  t.Object(
    {
      tagSlugs: t.Optional(t.Array(Slug, { minItems: 1, maxItems: 20, description: "items carrying any of these tags" })),
      collectionId: t.Optional(Id),
    },
    { description: "either tagSlugs or collectionId (exactly one); null = every item of the account" },
  ),
);

const Name = t.String({ maxLength: 200 });
const Url = t.String({ minLength: 1, maxLength: 2048, description: "http(s); must pass the SSRF guard when saved and on every delivery" });
const Secret = t.String({ description: "whsec_ + base64: the Standard Webhooks signing secret; shown only here" });

export const WebhookEndpoint = t.Object({
  id: t.String(),
  name: t.String(),
  url: t.String(),
  eventTypes: t.Array(t.String()),
  resourceScope: ResourceScope,
  status: t.Union([t.Literal("enabled"), t.Literal("paused"), t.Literal("disabled")], {
    description: "disabled is set automatically after consecutive failed attempts; PATCH status enabled re-enables",
  }),
  consecutiveFailures: Count({ description: "failed attempts in a row; a success resets it" }),
  disabledAt: t.Nullable(Millis()),
  previousSecretExpiresAt: t.Nullable(Millis("until then the previous secret signs too (rotation overlap)")),
  createdAt: Millis(),
  updatedAt: Millis(),
});

const DeliveryStatus = t.Union([t.Literal("pending"), t.Literal("succeeded"), t.Literal("failed")]);

export const DeliveryAttempt = t.Object({
  attempt: Int4({ description: "1 for the first attempt" }),
  startedAt: Millis(),
  durationMs: Int4(),
  statusCode: t.Nullable(Int4({ description: "the receiver's HTTP status; null when none came back" })),
  error: t.Nullable(t.String({ description: "stable code: http_status, redirect, timeout, connect, dns, network, url_not_allowed; null on success" })),
  message: t.Nullable(t.String()),
});

export const WebhookDelivery = t.Object({
  id: t.String({ description: "the webhook-id header and the body's id; the same on every retry" }),
  eventId: t.String({ description: "the change event's id (a fresh id for webhook.test)" }),
  type: t.String(),
  status: DeliveryStatus,
  attempts: Int4(),
  lastStatusCode: t.Nullable(Int4()),
  lastError: t.Nullable(t.String({ description: "stable code of the last failed attempt (see attemptLog); endpoint_disabled when dropped; interrupted when every run was cut short before its attempt was written" })),
  nextAttemptAt: t.Nullable(Millis("when the next attempt is due; null once succeeded or failed")),
  createdAt: Millis(),
  attemptLog: t.Array(DeliveryAttempt, { description: "every attempt, oldest first (at most 5)" }),
});

const EndpointIdParams = IdParams;
const page = { limit: t.Optional(Limit(1000, 50)), offset: t.Optional(Offset) };

export const webhookOperations = {
  listWebhooks: op({
    method: "GET",
    path: "/api/webhooks",
    service: "delivery",
    permission: "webhooks.manage",
    tag: "Webhooks",
    summary: "List webhook endpoints, newest first",
    query: t.Object(page),
    response: t.Object({ webhooks: t.Array(WebhookEndpoint), limit: Int4(), offset: Int4(), count: Count() }),
  }),
  createWebhook: op({
    method: "POST",
    path: "/api/webhooks",
    service: "delivery",
    permission: "webhooks.manage",
    tag: "Webhooks",
    summary: "Create a webhook endpoint; the signing secret is shown once, here",
    body: t.Object({
      name: t.Optional(Name),
      url: Url,
      eventTypes: t.Optional(EventTypes),
      resourceScope: t.Optional(ResourceScope),
    }),
    response: t.Object({ endpoint: WebhookEndpoint, secret: Secret }),
  }),
  getWebhook: op({
    method: "GET",
    path: "/api/webhooks/:id",
    service: "delivery",
    permission: "webhooks.manage",
    tag: "Webhooks",
    summary: "One webhook endpoint (never its secret)",
    params: EndpointIdParams,
    response: t.Object({ endpoint: WebhookEndpoint }),
  }),
  updateWebhook: op({
    method: "PATCH",
    path: "/api/webhooks/:id",
    service: "delivery",
    permission: "webhooks.manage",
    tag: "Webhooks",
    summary: "Change an endpoint's URL, event types, scope, name or status (enabled re-enables a disabled one)",
    params: EndpointIdParams,
    body: t.Object({
      name: t.Optional(Name),
      url: t.Optional(Url),
      eventTypes: t.Optional(EventTypes),
      resourceScope: t.Optional(ResourceScope),
      status: t.Optional(t.Union([t.Literal("enabled"), t.Literal("paused")], { description: "disabled is only ever set by Trove" })),
    }),
    response: t.Object({ endpoint: WebhookEndpoint }),
  }),
  deleteWebhook: op({
    method: "DELETE",
    path: "/api/webhooks/:id",
    service: "delivery",
    permission: "webhooks.manage",
    tag: "Webhooks",
    summary: "Delete an endpoint with its deliveries; nothing more is sent to it",
    params: EndpointIdParams,
    response: t.Object({ ok: t.Boolean(), id: t.String() }),
  }),
  testWebhook: op({
    method: "POST",
    path: "/api/webhooks/:id/test",
    service: "delivery",
    permission: "webhooks.manage",
    tag: "Webhooks",
    summary: "Queue a webhook.test delivery to an enabled endpoint (409 endpoint_inactive otherwise)",
    params: EndpointIdParams,
    response: t.Object({ delivery: WebhookDelivery }),
  }),
  rotateWebhookSecret: op({
    method: "POST",
    path: "/api/webhooks/:id/rotate-secret",
    service: "delivery",
    permission: "webhooks.manage",
    tag: "Webhooks",
    summary: "Replace the signing secret; the previous one keeps signing beside it for 24 h unless revokePrevious",
    params: EndpointIdParams,
    body: t.Optional(t.Object({ revokePrevious: t.Optional(t.Boolean()) })),
    response: t.Object({
      secret: Secret,
      previousSecretExpiresAt: t.Nullable(Millis("until then deliveries carry a signature by each secret; null when revoked")),
    }),
  }),
  listWebhookDeliveries: op({
    method: "GET",
    path: "/api/webhooks/:id/deliveries",
    service: "delivery",
    permission: "webhooks.manage",
    tag: "Webhooks",
    summary: "An endpoint's deliveries, newest first, each with its attempts",
    params: EndpointIdParams,
    query: t.Object({ ...page, status: t.Optional(DeliveryStatus) }),
    response: t.Object({ deliveries: t.Array(WebhookDelivery), limit: Int4(), offset: Int4(), count: Count() }),
  }),
} as const;
