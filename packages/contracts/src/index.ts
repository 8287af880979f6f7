export * from "./diff";
export * from "./spans";
export * from "./candidates";
export * from "./stage-results";
export * from "./queues";
export * from "./errors";
export * from "./extraction-stage";
export * from "./context-config";
