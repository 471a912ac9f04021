// Every service, in start order: domain services first, so the gateway opens its port once they answer.
import type { ServiceModule } from "@trove/host";
import { gatewayService } from "@trove/gateway";
import { itemsService } from "@trove/items";
import { notesService } from "@trove/notes";
import { sourcesService } from "@trove/sources";
import { deliveryService } from "@trove/delivery";
import { exportsService } from "@trove/exports";

export const allServices: ServiceModule[] = [itemsService, notesService, sourcesService, deliveryService, exportsService, gatewayService];
