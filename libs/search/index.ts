export * from "./engine.ts";
export * from "./text.ts";
export * from "./postgres.ts";
