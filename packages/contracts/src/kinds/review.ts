// A review commit: commits the candidates a reviewer approved for a turn or a document, in the background.
import type { SubjectKind } from "./subject-kind";

export const reviewKind: SubjectKind = {
  type: "review",
  alwaysBackground: true,
  groupable: false,
  parsed: false,
  direct: false,
  commitsApproved: true,
  maintenanceSkippable: false,
  chainable: false,
  instructs: "never",
  versioned: false,
};
