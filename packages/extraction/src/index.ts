export * from "./diff";
export * from "./spans";
