// The delivery service: webhook endpoints and their management routes, the consumer that turns item events into
// deliveries, and the dispatcher that sends them signed, with retries that survive a restart.
import { join } from "node:path";
import { itemEventsFilter, type ItemEventMessage } from "@trove/contracts";
import { serveOperations, type ServiceModule } from "@trove/host";
import { DeliveriesRepository } from "./deliveries.repository.ts";
import { Dispatcher, dispatcherDefaults } from "./dispatcher.ts";
import { deliveryEndpoints } from "./endpoints.ts";
import { EndpointsRepository } from "./endpoints.repository.ts";
import { EventFanout } from "./fanout.ts";
import { WebhooksService } from "./webhooks.service.ts";

/** The durable consumer of item events; it keeps its place across restarts. */
export const consumerName = "delivery";

export const deliveryService: ServiceModule = {
  name: "delivery",
  schema: { name: "delivery", migrations: join(import.meta.dir, "migrations") },
  async start(rt) {
    const db = rt.database.db;
    const endpoints = new EndpointsRepository(db);
    const deliveries = new DeliveriesRepository(db);
    const dispatcher = new Dispatcher(
      deliveries,
      {
        retry: { delaysSeconds: rt.config.webhookRetryDelays },
        disableAfter: rt.config.webhookDisableAfter,
        timeoutMs: rt.config.webhookTimeoutMs,
        allowPrivate: rt.config.allowPrivateNetwork,
        resolver: rt.resolver,
        ...dispatcherDefaults,
      },
      rt.log,
    );
    const wake = () => dispatcher.wake();
    const webhooks = new WebhooksService(endpoints, deliveries, { allowPrivateNetwork: rt.config.allowPrivateNetwork, resolver: rt.resolver }, wake);
    const fanout = new EventFanout(endpoints, deliveries, wake);
    const consumer = await rt.bus.consume(
      // Writing the deliveries is quick and idempotent: retry it for as long as the database is away.
      { durable: consumerName, filter: itemEventsFilter, ackWaitMs: 30_000, maxDeliver: 10_000, retryDelaysMs: [500, 2_000, 10_000] },
      (event) => fanout.handle(event.data as ItemEventMessage),
    );
    const subs = serveOperations(rt.bus, "delivery", deliveryEndpoints(webhooks), rt.log);
    // Pending retries live in the database: whatever was due while this process was down goes out now.
    dispatcher.wake();
    return {
      stop: async () => {
        for (const s of subs) await s.stop();
        await consumer.stop();
        await dispatcher.stop();
      },
    };
  },
};
