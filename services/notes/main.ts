import { runMain } from "@trove/host";
import { notesService } from "./index.ts";

await runMain([notesService]);
