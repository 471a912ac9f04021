export * from "./trove.ts";
export { freshPglite } from "./pglite.ts";
export { createScratchDatabase } from "./postgres.ts";
export * from "./topology.ts";
export * from "./pages.ts";
