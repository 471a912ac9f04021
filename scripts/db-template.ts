// `bun run db:template` (also run by `bun install`): makes the embedded deployment's data directory template, a
// PGlite directory with every migration in it, which a first start copies instead of running initdb
// (libs/db/template.ts). Skipped when the template already holds exactly this checkout's migrations.
import { pgliteTemplateDir, usableTemplate, writePgliteTemplate } from "@trove/db";
import { migrateModules, migrationNames } from "@trove/host";
import { allServices } from "../services.ts";

const names = await migrationNames(allServices);
const current = usableTemplate(names);
const holds = current ? (JSON.parse(await Bun.file(`${pgliteTemplateDir}/trove-template.json`).text()) as { migrations: string[] }).migrations : [];
if (current && holds.length === names.length) {
  console.log(`db:template: up to date (${pgliteTemplateDir})`);
} else {
  const started = performance.now();
  try {
    await writePgliteTemplate((database) => migrateModules(allServices, database), names);
    console.log(`db:template: made ${pgliteTemplateDir} in ${Math.round(performance.now() - started)} ms`);
  } catch (err) {
    // An install must not fail for it: without a template a first start runs initdb, as it always could.
    console.warn(`db:template: not made (${(err as Error).message}); a first start will run initdb instead`);
  }
}
