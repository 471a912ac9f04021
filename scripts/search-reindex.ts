// `bun run search:reindex`: rebuilds every item's and note's search document from the database (the embedded data
// directory, or DATABASE_URL), then exits. Safe while the service runs: documents are upserted, never dropped.
import { config } from "@trove/config";
import { openDatabase } from "@trove/db";
import { migrateModules } from "@trove/host";
import { itemsSearchIndex, itemsService } from "@trove/items";
import { notesSearchIndex, notesService } from "@trove/notes";

const c = config();
const database = await openDatabase({ databaseUrl: c.databaseUrl, dataDir: c.dataDir });
try {
  await migrateModules([itemsService, notesService], database);
  const started = performance.now();
  const items = await itemsSearchIndex(database.db).indexer.reindex();
  const notes = await notesSearchIndex(database.db).indexer.reindex();
  console.log(`reindexed ${items} items and ${notes} notes on ${database.kind} in ${Math.round(performance.now() - started)} ms`);
} finally {
  await database.close();
}
