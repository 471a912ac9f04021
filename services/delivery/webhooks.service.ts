// Webhook endpoint rules: who owns what (another account's endpoint is not found), which URLs may be saved, how
// status changes move held deliveries (a pause holds the endpoint's group of jobs, a resume lets it go at once),
// secret rotation with an overlap, test deliveries and the delivery log.
import type { Caller, Operations, OutputOf, ScopeFilter } from "@trove/contracts";
import { inTransaction, newId } from "@trove/db";
import { AppError, notFound } from "@trove/errors";
import type { QueueSet } from "@trove/jobs";
import type { Logger } from "@trove/log";
import { checkTarget, urlRefusal, type Resolver } from "@trove/webfetch";
import type { Kysely } from "kysely";
import type { AttemptRow, DeliveriesRepository, DeliveryRow, DeliveryStatus } from "./deliveries.repository.ts";
import type { EndpointChanges, EndpointRow, EndpointsRepository } from "./endpoints.repository.ts";
import { deliveryBody } from "./fanout.ts";
import { newSecret } from "./signing.ts";
import { webhookQueue, type WebhookPayload } from "./webhook-job.ts";

type WebhookEndpointDto = OutputOf<Operations["getWebhook"]>["endpoint"];
type WebhookDeliveryDto = OutputOf<Operations["testWebhook"]>["delivery"];

/** How long the previous secret keeps signing after a rotation. */
export const rotationOverlapMs = 24 * 60 * 60 * 1000;

export interface UrlPolicy {
  allowPrivateNetwork: boolean;
  resolver?: Resolver;
}

interface EndpointInput {
  name?: string;
  url?: string;
  eventTypes?: string[];
  resourceScope?: ScopeFilter | null;
  status?: "enabled" | "paused";
}

export function endpointDto(e: EndpointRow, now = Date.now()): WebhookEndpointDto {
  const overlap = e.previous_secret !== null && e.previous_secret_expires_at !== null && e.previous_secret_expires_at > now;
  return {
    id: e.id,
    name: e.name,
    url: e.url,
    eventTypes: e.event_types,
    resourceScope: e.resource_scope as WebhookEndpointDto["resourceScope"],
    status: e.status,
    consecutiveFailures: e.consecutive_failures,
    disabledAt: e.disabled_at,
    previousSecretExpiresAt: overlap ? e.previous_secret_expires_at : null,
    createdAt: e.created_at,
    updatedAt: e.updated_at,
  };
}

export function deliveryDto(d: DeliveryRow, attempts: AttemptRow[]): WebhookDeliveryDto {
  return {
    id: d.id,
    eventId: d.event_id,
    type: d.type,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.last_status_code,
    lastError: d.last_error,
    nextAttemptAt: d.status === "pending" ? d.next_attempt_at : null,
    createdAt: d.created_at,
    attemptLog: attempts.map((a) => ({
      attempt: a.attempt,
      startedAt: a.started_at,
      durationMs: a.duration_ms,
      statusCode: a.status_code,
      error: a.error,
      message: a.message,
    })),
  };
}

/** A tag scope or a collection scope: exactly one of the two. */
function checkedScope(scope: ScopeFilter): ScopeFilter {
  const { tagSlugs, collectionId } = scope;
  if ((tagSlugs === undefined) === (collectionId === undefined)) {
    throw new AppError("validation_failed", "resourceScope takes either tagSlugs or collectionId", {
      fields: { resourceScope: "give exactly one of tagSlugs and collectionId" },
    });
  }
  return tagSlugs ? { tagSlugs: [...new Set(tagSlugs)] } : { collectionId: collectionId! };
}

export class WebhooksService {
  constructor(
    private readonly db: Kysely<any>,
    private readonly endpoints: EndpointsRepository,
    private readonly deliveries: DeliveriesRepository,
    /** The delivery schema's queues: each delivery is a job of the webhook queue, in its endpoint's group. */
    private readonly queue: QueueSet,
    private readonly urls: UrlPolicy,
    private readonly log: Logger,
  ) {}

  async list(caller: Caller, limit: number, offset: number) {
    const { rows, count } = await this.endpoints.list(caller.accountId, limit, offset);
    const now = Date.now();
    return { webhooks: rows.map((r) => endpointDto(r, now)), limit, offset, count };
  }

  async create(caller: Caller, input: EndpointInput & { url: string }) {
    const clean = await this.checked(input);
    const secret = newSecret();
    const row = await this.endpoints.insert(caller.accountId, {
      id: newId(),
      name: clean.name ?? "",
      url: clean.url!,
      eventTypes: clean.eventTypes ?? ["*"],
      resourceScope: clean.resourceScope ?? null,
      secret,
      now: Date.now(),
    });
    return { endpoint: endpointDto(row), secret };
  }

  async get(caller: Caller, id: string) {
    return { endpoint: endpointDto(await this.owned(caller, id)) };
  }

  async update(caller: Caller, id: string, input: EndpointInput) {
    const before = await this.owned(caller, id);
    const clean = await this.checked(input);
    const now = Date.now();
    const changes: EndpointChanges = clean;
    const row = await inTransaction(this.db, async (uow) => {
      const row = await this.endpoints.on(uow).update(caller.accountId, id, changes, now);
      if (!row || clean.status === undefined || clean.status === before.status) return row;
      if (clean.status === "paused") {
        // Nothing starts while paused (an attempt under way ends); events keep making deliveries, held.
        await this.queue.pauseGroup(uow, webhookQueue, id);
      } else {
        // Resuming sends what the pause held, now; a re-enabled endpoint starts with a clean failure count.
        await this.deliveries.on(uow).resumeHeld(caller.accountId, id, now);
        await this.queue.resumeGroup(uow, webhookQueue, id, { dueNow: true });
      }
      return row;
    });
    if (!row) throw notFound("webhook endpoint");
    return { endpoint: endpointDto(row, now) };
  }

  async delete(caller: Caller, id: string) {
    // The endpoint and its deliveries go at once; a job left of one finds nothing to send and ends.
    if (!(await this.endpoints.delete(caller.accountId, id))) throw notFound("webhook endpoint");
    // Then its jobs end now rather than when they come due, and its group keeps no pause. Apart from the delete, so
    // that a conflict with an attempt's end cannot undo the delete; if it fails, the jobs end when they run.
    await inTransaction(this.db, async (uow) => {
      await this.queue.failGroup(uow, webhookQueue, id, "endpoint_deleted");
      await this.queue.resumeGroup(uow, webhookQueue, id);
    }).catch((err) => this.log.warn({ err, endpointId: id }, "could not end a deleted endpoint's jobs; they end when they run"));
    return { ok: true, id };
  }

  /** Queues a webhook.test delivery; only an enabled endpoint takes one. */
  async test(caller: Caller, id: string) {
    const endpoint = await this.owned(caller, id);
    if (endpoint.status !== "enabled") {
      throw new AppError("endpoint_inactive", `the endpoint is ${endpoint.status}; set status "enabled" to send it a test`, { status: endpoint.status });
    }
    const deliveryId = newId();
    const eventId = newId();
    const now = Date.now();
    const body = deliveryBody(deliveryId, "webhook.test", now, caller.accountId, {
      eventId,
      itemId: "",
      beforeScope: null,
      afterScope: null,
      payload: { message: "a test delivery from Trove" },
    });
    await inTransaction(this.db, async (uow) => {
      const added = await this.deliveries.on(uow).insertMany([{ id: deliveryId, accountId: caller.accountId, endpointId: id, eventId, type: "webhook.test", body, now }]);
      if (added.length > 0) await this.queue.enqueue<WebhookPayload>(uow, webhookQueue, { endpointId: id }, { id: deliveryId, accountId: caller.accountId });
    });
    const row = await this.deliveries.get(caller.accountId, deliveryId);
    if (!row) throw notFound("webhook endpoint"); // deleted in between
    return { delivery: deliveryDto(row, await this.deliveries.attemptsOf([deliveryId])) };
  }

  async rotate(caller: Caller, id: string, revokePrevious: boolean) {
    await this.owned(caller, id);
    const now = Date.now();
    const secret = newSecret();
    const expires = revokePrevious ? null : now + rotationOverlapMs;
    const row = await this.endpoints.rotate(caller.accountId, id, secret, expires, now);
    if (!row) throw notFound("webhook endpoint");
    return { secret, previousSecretExpiresAt: expires };
  }

  async listDeliveries(caller: Caller, id: string, page: { limit: number; offset: number; status?: DeliveryStatus }) {
    await this.owned(caller, id);
    const { rows, attempts, count } = await this.deliveries.list(caller.accountId, id, page);
    const byDelivery = new Map<string, AttemptRow[]>();
    for (const a of attempts) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
    return { deliveries: rows.map((r) => deliveryDto(r, byDelivery.get(r.id) ?? [])), limit: page.limit, offset: page.offset, count };
  }

  private async owned(caller: Caller, id: string): Promise<EndpointRow> {
    const row = await this.endpoints.get(caller.accountId, id);
    if (!row) throw notFound("webhook endpoint");
    return row;
  }

  /** The input with its rules applied: a fetchable URL, `*` alone, no repeats. */
  private async checked(input: EndpointInput): Promise<EndpointInput> {
    const out: EndpointInput = { ...input };
    if (input.name !== undefined) out.name = input.name.trim();
    if (input.url !== undefined) out.url = await this.checkedUrl(input.url.trim());
    if (input.eventTypes !== undefined) {
      const types = [...new Set(input.eventTypes)];
      if (types.includes("*") && types.length > 1) {
        throw new AppError("validation_failed", '"*" already means every event type; give it alone', { fields: { eventTypes: '"*" stands alone' } });
      }
      out.eventTypes = types;
    }
    if (input.resourceScope) out.resourceScope = checkedScope(input.resourceScope);
    return out;
  }

  private async checkedUrl(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new AppError("validation_failed", "url is not a valid URL", { fields: { url: "must be an absolute http(s) URL" } });
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new AppError("validation_failed", `url scheme ${url.protocol} is not allowed`, { fields: { url: "must be an absolute http(s) URL" } });
    }
    if (url.username || url.password) {
      // Deliveries never send URL credentials (the fetcher strips them): authenticate by the signature.
      throw new AppError("validation_failed", "url must not carry credentials", { fields: { url: "remove user:password@; receivers verify the signature instead" } });
    }
    try {
      await checkTarget(url.href, { allowPrivate: this.urls.allowPrivateNetwork, resolver: this.urls.resolver, timeoutMs: 5_000 });
    } catch (err) {
      const refused = urlRefusal(err);
      if (refused) {
        throw new AppError("url_not_allowed", refused.message, { fields: { url: "names or resolves to an address Trove may not deliver to" } });
      }
      throw err;
    }
    return url.href;
  }
}
