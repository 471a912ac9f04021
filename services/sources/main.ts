import { runMain } from "@trove/host";
import { sourcesService } from "./index.ts";

await runMain([sourcesService]);
