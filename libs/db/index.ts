export { openDatabase, pgliteLayout, type Database, type OpenOptions } from "./open.ts";
export { migrateSchema, type MigrateOptions } from "./migrate.ts";
export { lockDataDir, DataDirLockedError } from "./lock.ts";
export { nowSeconds, nowMillis, newId } from "./ids.ts";
export { compileOnce } from "./compiled.ts";
export { planEachTimeMarker } from "./prepared.ts";
export { maintainOnce, startMaintenance, maintenanceEveryMs } from "./maintenance.ts";
export { nextTurn } from "./turns.ts";
export { inTransaction, type UnitOfWork, type UnitOfWorkOptions } from "./unit-of-work.ts";
