export * from "./extractor";
export * from "./chunker";
export * from "./skills";
export * from "./model-output";
export * from "./staged-extractor";
