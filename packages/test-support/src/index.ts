export * from "./databases";
export * from "./wait-for";
export * from "./queues";
export * from "./fake-llm-server";
export * from "./fake-embeddings";
export * from "./pdf-fixture";
export * from "./prometheus-text";
export * from "./effects-audit";
