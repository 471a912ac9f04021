// The gateway service: HTTP in, bus requests out.
import { join } from "node:path";
import type { ServiceModule } from "@trove/host";
import { AccountsRepository } from "./accounts.repository.ts";
import { AccountsService } from "./accounts.service.ts";
import { createGatewayApp } from "./app.ts";
import { checkHealth } from "./health.ts";

export const gatewayService: ServiceModule = {
  name: "gateway",
  schema: { name: "gateway", migrations: join(import.meta.dir, "migrations") },
  async start(rt) {
    const accounts = new AccountsService(new AccountsRepository(rt.database.db), rt.log);
    await accounts.seed(rt.config.seedAccounts);
    const app = createGatewayApp({
      config: rt.config,
      bus: rt.bus,
      accounts,
      log: rt.log,
      local: { health: () => checkHealth(rt.bus, rt.database, rt.deployment) },
    });
    app.listen({ port: rt.config.port, hostname: rt.config.host });
    const url = `http://${rt.config.host}:${app.server!.port}`;
    rt.log.info({ url }, "gateway listening");
    return {
      url,
      // Stop accepting, let in-flight requests finish, then the host closes bus and database.
      stop: async () => {
        await app.stop(false);
      },
    };
  },
};

export { createGatewayApp } from "./app.ts";
