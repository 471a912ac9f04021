import { runMain } from "@trove/host";
import { gatewayService } from "./index.ts";

await runMain([gatewayService]);
