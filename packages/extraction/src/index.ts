export * from "./extractor";
export * from "./chunker";
export * from "./skills";
export * from "./model-output";
export * from "./staged-extractor";
export * from "./model-prompt";
export * from "./window-output";
export * from "./window-prompt";
