// Real: the in-process bus.
import { createLogger } from "@trove/log";
import { MemoryBus } from "../memory.ts";
import { busContract } from "./contract.ts";

busContract("in-process", async () => new MemoryBus(createLogger("silent")));
