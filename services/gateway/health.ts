// GET /api/health: this process's database and bus, and every service's answer over the bus.
import type { Bus } from "@trove/bus";
import { type HealthReportDto, type ServiceName, apiVersion, documentVersion } from "@trove/contracts";
import type { Database } from "@trove/db";
import { vectorBackend } from "@trove/search";

const domainServices: ServiceName[] = ["items", "notes", "sources", "delivery", "exports"];

/** A service's health reply: its work queue and event consumers pass through as the service counts them. */
type ServiceHealth = HealthReportDto["services"][string];

export async function checkHealth(bus: Bus, database: Database, deployment: "embedded" | "distributed", semantic: boolean): Promise<HealthReportDto> {
  const [dbOk, busOk, vectors, answers] = await Promise.all([
    database.healthy(),
    bus.healthy(),
    vectorBackend(database.db, database.kind, semantic).catch(() => "off" as const),
    Promise.all(
      domainServices.map((s) =>
        bus.request(`${s}.health`, {}, { timeoutMs: 2_000 }).then(
          (r) => r as ServiceHealth,
          (): ServiceHealth => ({ ok: false }),
        ),
      ),
    ),
  ]);
  const services = Object.fromEntries(domainServices.map((s, i) => [s, answers[i]!]));
  const allOk = dbOk && busOk && answers.every((a) => a.ok && a.database !== false);
  return {
    status: allOk ? "ok" : "degraded",
    version: documentVersion,
    apiVersion,
    deployment,
    database: { ok: dbOk, kind: database.kind },
    bus: { ok: busOk, kind: bus.kind },
    vectors: { backend: vectors },
    services,
  };
}
