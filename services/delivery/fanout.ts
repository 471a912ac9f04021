// Turns each item event from the bus into one delivery per matching endpoint: enabled or paused (held until
// resumed), created before the event, listening to the type this endpoint sees (typeForReader: an item leaving
// the endpoint's scope is `item.removed_from_scope`). The message is built here, once, and sent as is on every
// attempt. One (endpoint, event) pair makes one delivery, however often the bus redelivers the event.
import { type EventType, type ItemEventMessage, typeForReader } from "@trove/contracts";
import { newId } from "@trove/db";
import type { DeliveriesRepository, NewDelivery } from "./deliveries.repository.ts";
import type { EndpointRow, EndpointsRepository } from "./endpoints.repository.ts";

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
    private readonly endpoints: EndpointsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly onAdded: () => void,
  ) {}

  async handle(msg: ItemEventMessage): Promise<void> {
    const listeners = await this.endpoints.listeners(msg.accountId);
    const now = Date.now();
    const rows = listeners.flatMap((e) => this.deliveryFor(e, msg, now));
    if (rows.length === 0) return;
    await this.deliveries.insertMany(msg.accountId, rows);
    this.onAdded();
  }

  private deliveryFor(e: EndpointRow, msg: ItemEventMessage, now: number): NewDelivery[] {
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
    return [{ id, endpointId: e.id, eventId: msg.id, type, body, now }];
  }
}
