// A turn of a session: extracted alone, in a window of its session, or by its batch's job; a caller may wait on it.
import type { SubjectKind } from "./subject-kind";

export const turnKind: SubjectKind = {
  type: "turn",
  source: "turn",
  alwaysBackground: false,
  groupable: true,
  parsed: false,
  direct: false,
  commitsApproved: false,
  maintenanceSkippable: true,
  chainable: true,
  unit: "turn",
  instructs: "from the user",
  versioned: false,
};
