export * from "./runtime.ts";
export * from "./serve.ts";
export * from "./process.ts";
export * from "./pump.ts";
export * from "./outbox.ts";
