// `bun run start`: every service in one process. Embedded (PGlite + in-process bus) by default;
// with DATABASE_URL and NATS_URL the same services run over PostgreSQL and NATS.
import { runMain } from "@trove/host";
import { gatewayService } from "@trove/gateway";
import { itemsService } from "@trove/items";
import { notesService } from "@trove/notes";
import { sourcesService } from "@trove/sources";
import { deliveryService } from "@trove/delivery";
import { exportsService } from "@trove/exports";

// Domain services first, so the gateway opens its port only once they answer.
await runMain([itemsService, notesService, sourcesService, deliveryService, exportsService, gatewayService]);
