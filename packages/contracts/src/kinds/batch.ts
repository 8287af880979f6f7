// A batch of turns (POST …/turns/batch): its job runs its turns' stages together, each turn keeping its own items.
import type { SubjectKind } from "./subject-kind";

export const batchKind: SubjectKind = {
  type: "batch",
  alwaysBackground: false,
  groupable: false,
  group: "batch",
  parsed: false,
  direct: false,
  commitsApproved: false,
  maintenanceSkippable: false,
  chainable: false,
  instructs: "never",
  versioned: false,
};
