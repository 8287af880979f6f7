// A document: parsed into nodes, extracted node by node in the background; its commit retires its previous version.
import { defineKind } from "./subject-kind";

export const documentKind = defineKind({
  type: "document",
  source: "document",
  alwaysBackground: true,
  parsed: true,
  unit: "document_node",
  versioned: true,
});
