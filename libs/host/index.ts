export * from "./runtime.ts";
export * from "./serve.ts";
export * from "./process.ts";
