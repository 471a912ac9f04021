import { runMain } from "@trove/host";
import { itemsService } from "./index.ts";

await runMain([itemsService]);
