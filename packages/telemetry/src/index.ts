export * from "./logger";
export * from "./tracing";
export * from "./metrics";
export * from "./secret-scrubber";
export * from "./shutdown";
