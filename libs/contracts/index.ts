export * from "./operation.ts";
export * from "./schemas.ts";
export * from "./operations.ts";
export * from "./events.ts";

export const apiVersion = "2026-08-24";
export const documentVersion = "0.1.0";
export * from "./slug.ts";
export * from "./notes.ts";
export * from "./projects.ts";
export * from "./internal.ts";
export * from "./permissions.ts";
export * from "./note-events.ts";
export * from "./search.ts";
export * from "./sources.ts";
export * from "./portability.ts";
export * from "./exports.ts";
