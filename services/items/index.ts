// The items service: saved pages, their content, tags, collections, highlights and the item event outbox.
import { join } from "node:path";
import { migrateSchema } from "@trove/db";
import { serveOperations, type ServiceModule } from "@trove/host";
import { itemsEndpoints } from "./endpoints.ts";
import { ItemsRepository } from "./items.repository.ts";
import { ItemsService } from "./items.service.ts";

export const itemsService: ServiceModule = {
  name: "items",
  async start(rt) {
    await migrateSchema(rt.database.db, "items", join(import.meta.dir, "migrations"));
    const service = new ItemsService(new ItemsRepository(rt.database.db));
    const subs = serveOperations(rt.bus, "items", itemsEndpoints(service), rt.log);
    return {
      stop: async () => {
        for (const s of subs) await s.stop();
      },
    };
  },
};
