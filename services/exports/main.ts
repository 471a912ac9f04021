import { runMain } from "@trove/host";
import { exportsService } from "./index.ts";

await runMain([exportsService]);
