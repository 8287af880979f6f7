export * from "./extractor";
export * from "./chunker";
export * from "./heuristics";
export * from "./skills";
export * from "./model-output";
export * from "./staged-extractor";
