// The delivery service: webhook endpoints and their management routes, the consumer of the event log that turns
// item events into deliveries, and the webhook queue that sends them signed, with retries that survive a restart.
import { join } from "node:path";
import { itemEventsFilter } from "@trove/contracts";
import { serveOperations, type ServiceModule } from "@trove/host";
import { DeliveriesRepository } from "./deliveries.repository.ts";
import { deliveryEndpoints } from "./endpoints.ts";
import { EndpointsRepository } from "./endpoints.repository.ts";
import { EventFanout } from "./fanout.ts";
import { webhookJobs } from "./webhook-job.ts";
import { WebhooksService } from "./webhooks.service.ts";

/**
 * The consumer of item events: it keeps its place in the event log (a JetStream durable of this name with NATS, a
 * stored position in the embedded deployment) and moves on only once the deliveries it made are written.
 */
export const consumerName = "delivery";

export const deliveryService: ServiceModule = {
  name: "delivery",
  schema: { name: "delivery", migrations: join(import.meta.dir, "migrations"), queue: true },
  async start(rt) {
    const db = rt.database.db;
    const endpoints = new EndpointsRepository(db);
    const deliveries = new DeliveriesRepository(db);
    const queue = rt.jobs.for("delivery");
    queue.register(
      webhookJobs({
        deliveries,
        endpoints,
        queue,
        options: {
          retry: { delaysSeconds: rt.config.webhookRetryDelays },
          disableAfter: rt.config.webhookDisableAfter,
          timeoutMs: rt.config.webhookTimeoutMs,
          allowPrivate: rt.config.allowPrivateNetwork,
          resolver: rt.resolver,
        },
        log: rt.log.child({ part: "webhooks" }),
      }),
    );
    const webhooks = new WebhooksService(db, endpoints, deliveries, queue, { allowPrivateNetwork: rt.config.allowPrivateNetwork, resolver: rt.resolver }, rt.log);
    const fanout = new EventFanout(db, endpoints, deliveries, queue);
    // Writing the deliveries is quick and idempotent: retried, from the durable position, for as long as the
    // database refuses; a batch of 500 events is one query for its endpoints and one unit of work.
    await rt.events.consume(
      { name: consumerName, filter: itemEventsFilter, batch: 500, ackWaitMs: 30_000, retryDelaysMs: [500, 2_000, 10_000] },
      (batch) => fanout.handle(batch),
    );
    const subs = serveOperations(rt.bus, "delivery", deliveryEndpoints(webhooks), rt.log);
    // The host stops the queue's worker (attempts under way finish or go back to the queue) and then the consumer
    // (after its batch in hand) before this stop, which ends the bus handlers.
    return {
      stop: async () => {
        for (const s of subs) await s.stop();
      },
    };
  },
};
