// `bun run db:migrate`: brings every service's schema to its latest migration, then exits.
import { config } from "@trove/config";
import { openDatabase } from "@trove/db";
import { migrateModules } from "@trove/host";
import { allServices } from "../services.ts";

const c = config();
const database = await openDatabase({ databaseUrl: c.databaseUrl, dataDir: c.dataDir });
try {
  await migrateModules(allServices, database);
  console.log(`migrated ${allServices.filter((s) => s.schema).map((s) => s.schema!.name).join(", ")} on ${database.kind}`);
} finally {
  await database.close();
}
