import { runMain } from "@trove/host";
import { deliveryService } from "./index.ts";

await runMain([deliveryService]);
