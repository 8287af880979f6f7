export * from "./document-types";
export * from "./document-parser";
export * from "./format-detection";
export { splitBlocks } from "./node-splitter";
export { markdownBlocks } from "./markdown-blocks";
