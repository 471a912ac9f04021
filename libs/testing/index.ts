export * from "./trove.ts";
export { freshPglite } from "./pglite.ts";
export { createScratchDatabase, dropScratchDatabase } from "./postgres.ts";
export * from "./stack.ts";
export * from "./topology.ts";
export * from "./pages.ts";
export * from "./keys.ts";
export * from "./webhooks.ts";
export * from "./browser.ts";
