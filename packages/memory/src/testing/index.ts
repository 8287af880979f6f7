// @recall/memory/testing: reads that only tests use, to check what the pipeline wrote straight from the tables (the
// API serves history and as-of views through read/history-reader.ts and the other readers of the package's index).
export { findEntitiesByName, readInstructions } from "./memory-lookup";
export { readFactHistory, readFactsAsOf } from "./fact-history";
