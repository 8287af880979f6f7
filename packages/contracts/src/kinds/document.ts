// A document: parsed into nodes, extracted node by node in the background; its commit retires its previous version.
import type { SubjectKind } from "./subject-kind";

export const documentKind: SubjectKind = {
  type: "document",
  source: "document",
  alwaysBackground: true,
  groupable: false,
  parsed: true,
  direct: false,
  commitsApproved: false,
  maintenanceSkippable: false,
  chainable: false,
  unit: "document_node",
  instructs: "never",
  versioned: true,
};
