export * from "./skill-loader";
export * from "./plan-resolver";
