// Real: the in-process bus.
import { createLogger } from "@trove/log";
import { MemoryBus } from "../memory.ts";
import { busContract } from "./contract.ts";

// One bus per process: another "process" of the embedded deployment is the same bus.
busContract("in-process", async () => new MemoryBus(createLogger("silent")), async (bus) => bus, { events: false });
