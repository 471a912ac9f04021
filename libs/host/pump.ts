// The host's loop woken by pokes is the jobs library's Wakeup; this name stays for the callers not yet moved.
export { Wakeup as Pump, type WakeupOptions as PumpOptions, type WakeupStep as PumpStep } from "@trove/jobs";
