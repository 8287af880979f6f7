// An extraction window: one model call for several turns of a session; its job runs its turns' later stages.
import type { SubjectKind } from "./subject-kind";

export const windowKind: SubjectKind = {
  type: "window",
  alwaysBackground: true,
  groupable: false,
  group: "window",
  parsed: false,
  direct: false,
  commitsApproved: false,
  maintenanceSkippable: false,
  chainable: false,
  instructs: "never",
  versioned: false,
};
