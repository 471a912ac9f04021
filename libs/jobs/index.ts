export { Wakeup, backoffMs, type WakeupOptions, type WakeupStep, type WakeupTimers } from "./wakeup.ts";
