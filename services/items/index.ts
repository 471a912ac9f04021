// The items service: saved pages, their content, tags, collections, highlights and the item event outbox.
import { join } from "node:path";
import { serveOperations, type ServiceModule } from "@trove/host";
import { itemsEndpoints } from "./endpoints.ts";
import { ItemsRepository } from "./items.repository.ts";
import { ItemsService } from "./items.service.ts";

export const itemsService: ServiceModule = {
  name: "items",
  schema: { name: "items", migrations: join(import.meta.dir, "migrations") },
  async start(rt) {
    const service = new ItemsService(new ItemsRepository(rt.database.db));
    const subs = serveOperations(rt.bus, "items", itemsEndpoints(service), rt.log);
    return {
      stop: async () => {
        for (const s of subs) await s.stop();
      },
    };
  },
};
