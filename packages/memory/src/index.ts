export * from "./identity";
export * from "./entity-resolver";
export * from "./validate";
export * from "./commit";
export * from "./truth-maintenance";
export * from "./scope";
