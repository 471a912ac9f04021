export * from "./engine.ts";
export * from "./text.ts";
export * from "./postgres.ts";
export * from "./fusion.ts";
export * from "./vectors.ts";
export * from "./semantic.ts";
export { PgvectorStore } from "./pgvector.ts";
export { UsearchStore, type ChangeNotices } from "./usearch-store.ts";
