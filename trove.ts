// `bun run start`: every service in one process. Embedded (PGlite + in-process bus) by default;
// with DATABASE_URL and NATS_URL the same services run over PostgreSQL and NATS.
import { runMain } from "@trove/host";
import { allServices } from "./services.ts";

await runMain(allServices);
