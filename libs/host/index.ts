export * from "./runtime.ts";
export * from "./serve.ts";
export * from "./process.ts";
export { startAdminServer, type AdminServer, type AdminOptions } from "./admin.ts";
export { Readiness, type ReadinessReport, type ReadinessChecks } from "./readiness.ts";
