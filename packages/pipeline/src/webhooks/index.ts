export * from "./backoff";
export * from "./signature";
export * from "./url-guard";
export * from "./webhook-dispatcher";
