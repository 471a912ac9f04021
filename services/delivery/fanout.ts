// Turns item events from the event log into one delivery per matching endpoint: enabled or paused (held until
// resumed), created before the event, listening to the type this endpoint sees (typeForReader: an item leaving
// the endpoint's scope is `item.removed_from_scope`). The message is built here, once, and sent as is on every
// attempt. A batch of events makes its deliveries and their jobs in one unit of work, and the log counts the batch
// as handled only after it committed; one (endpoint, event) pair makes one delivery, however often the log hands
// the event over.
import { type EventType, type ItemEventMessage, typeForReader } from "@trove/contracts";
import { inTransaction, newId } from "@trove/db";
import type { LoggedEvent } from "@trove/eventlog";
import type { QueueSet } from "@trove/jobs";
import type { Kysely } from "kysely";
import type { DeliveriesRepository, NewDelivery } from "./deliveries.repository.ts";
import type { EndpointRow, EndpointsRepository } from "./endpoints.repository.ts";
import { webhookQueue, type WebhookPayload } from "./webhook-job.ts";

/** The delivery body (spec, Events rule 3): no item content; the receiver reads the item through the API. */
export function deliveryBody(id: string, type: EventType, createdAt: number, accountId: string, data: {
  eventId: string;
  itemId: string;
  beforeScope: unknown;
  afterScope: unknown;
  payload: Record<string, unknown>;
}): string {
  return JSON.stringify({ id, type, createdAt, accountId, data });
}

/** True when an endpoint listening to `eventTypes` takes events of `type`. */
export function listensTo(eventTypes: string[], type: string): boolean {
  return eventTypes.includes("*") || eventTypes.includes(type);
}

export class EventFanout {
  constructor(
    private readonly db: Kysely<any>,
    private readonly endpoints: EndpointsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly queue: QueueSet,
  ) {}

  /** One batch of item events: one query for the listening endpoints of its accounts, one unit of work for the rest. */
  async handle(events: LoggedEvent[]): Promise<void> {
    const messages = events.map((e) => e.data as unknown as ItemEventMessage);
    const listeners = new Map<string, EndpointRow[]>();
    for (const e of await this.endpoints.listeners([...new Set(messages.map((m) => m.accountId))])) {
      listeners.set(e.account_id, [...(listeners.get(e.account_id) ?? []), e]);
    }
    const now = Date.now();
    const rows = messages.flatMap((m) => (listeners.get(m.accountId) ?? []).flatMap((e) => deliveryFor(e, m, now)));
    if (rows.length === 0) return;
    await inTransaction(this.db, async (uow) => {
      const added = await this.deliveries.on(uow).insertMany(rows);
      await this.queue.enqueueMany<WebhookPayload>(
        uow,
        webhookQueue,
        added.map((r) => ({ payload: { endpointId: r.endpointId }, id: r.id, accountId: r.accountId })),
      );
    });
  }
}

function deliveryFor(e: EndpointRow, msg: ItemEventMessage, now: number): NewDelivery[] {
  // An endpoint hears of changes made after it was created, not of a backlog the consumer was still reading.
  if (msg.changedAt < e.created_at) return [];
  const type = typeForReader(msg.type, msg.beforeScope, msg.afterScope, e.resource_scope);
  if (type === null || !listensTo(e.event_types, type)) return [];
  const id = newId();
  const body = deliveryBody(id, type, msg.changedAt, msg.accountId, {
    eventId: msg.id,
    itemId: msg.itemId,
    beforeScope: msg.beforeScope,
    afterScope: msg.afterScope,
    payload: msg.payload,
  });
  return [{ id, accountId: msg.accountId, endpointId: e.id, eventId: msg.id, type, body, now }];
}
