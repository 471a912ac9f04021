export * from "./launch.ts";
export * from "./nats-server.ts";
export * from "./proxy.ts";
export * from "./ports.ts";
