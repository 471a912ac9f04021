// The gateway service: HTTP in, bus requests out. It owns accounts and keys, so it answers the connected-client
// routes itself, like health.
import { join } from "node:path";
import type { RunningService, Runtime, ServiceModule } from "@trove/host";
import { serveAccountCaller } from "./account-caller.ts";
import { AccountsRepository } from "./accounts.repository.ts";
import { AccountsService, type AccountsOptions } from "./accounts.service.ts";
import { createGatewayApp } from "./app.ts";
import { ClientsRepository } from "./clients.repository.ts";
import { ClientsService } from "./clients.service.ts";
import { checkHealth } from "./health.ts";
import { RateLimiter, RateStore } from "./ratelimit.ts";
import { SessionsRepository } from "./sessions.repository.ts";
import { SessionsService } from "./sessions.service.ts";

export interface GatewayOptions {
  /** Tests pass an instrumented repository (a subclass that counts its queries). */
  accountsRepository?: AccountsRepository;
  accounts?: AccountsOptions;
}

/** Starts one gateway on a runtime; the service module below, and tests that run a second replica, use it. */
export async function startGateway(rt: Runtime, opts: GatewayOptions = {}): Promise<RunningService & { url: string; accounts: AccountsService }> {
  const accountsRepo = opts.accountsRepository ?? new AccountsRepository(rt.database.db);
  // On PostgreSQL every replica counts in the same budgets; on PGlite (one process) in memory.
  const rateStore = RateStore.for(rt.database, rt.log);
  const requests = new RateLimiter(rt.config.rateLimit, "default", undefined, rateStore);
  const accounts = new AccountsService(accountsRepo, rt.log, { rateStore, requests, ...opts.accounts });
  await accounts.seed(rt.config.seedAccounts);
  const revocations = accounts.listen(rt.bus);
  const accountCaller = serveAccountCaller(rt.bus, accountsRepo);
  const clients = new ClientsService(new ClientsRepository(rt.database.db), accounts, rt.bus, rt.log, rt.config.requestTimeoutMs);
  const sessions = new SessionsService(new SessionsRepository(rt.database.db), accountsRepo, rt.log, {
    ttlHours: rt.config.sessionTtlHours,
    idleHours: rt.config.sessionIdleHours,
    signInLimit: rt.config.signInLimit,
    accountLimit: rt.config.signInAccountLimit,
  }, rateStore);
  for (const a of rt.config.seedAccounts) if (a.password) await sessions.seedPassword(a.email, a.password);
  const app = createGatewayApp({
    config: rt.config,
    bus: rt.bus,
    accounts,
    limiter: requests,
    sessions,
    log: rt.log,
    blobs: rt.blobs,
    local: {
      health: () => checkHealth(rt.bus, rt.database, rt.deployment, rt.config.semantic),
      createClient: ({ body }, ctx) => clients.create(ctx.caller!, body, ctx.requestId),
      listClients: (_, ctx) => clients.list(ctx.caller!),
      revokeClient: ({ body }, ctx) => clients.revoke(ctx.caller!, body.id),
      createSession: ({ body }, ctx) => sessions.signIn(body, ctx.http!),
      getSession: (_, ctx) => sessions.current(ctx.caller!, ctx.http),
      deleteSession: (_, ctx) => sessions.signOut(ctx.http),
      listSessions: (_, ctx) => sessions.list(ctx.caller!, ctx.http),
      revokeSession: ({ body }, ctx) => sessions.revoke(ctx.caller!, body.id),
      setPassword: ({ body }, ctx) => sessions.setPassword(ctx.caller!, body, ctx.http),
    },
  });
  app.listen({ port: rt.config.port, hostname: rt.config.host });
  const url = `http://${rt.config.host}:${app.server!.port}`;
  rt.log.info({ url }, "gateway listening");
  // Stop accepting; requests in flight finish (their bus requests are still answered).
  let closing: Promise<unknown> | undefined;
  const stopIntake = async () => void (await (closing ??= app.stop(false)));
  return {
    url,
    accounts,
    stopIntake,
    stop: async () => {
      await stopIntake();
      await revocations.stop();
      await accountCaller.stop();
    },
  };
}

export const gatewayService: ServiceModule = {
  name: "gateway",
  schema: { name: "gateway", migrations: join(import.meta.dir, "migrations") },
  start: (rt) => startGateway(rt),
};

export { createGatewayApp } from "./app.ts";
export { AccountsRepository } from "./accounts.repository.ts";
export { AccountsService } from "./accounts.service.ts";
