// A direct write (POST /facts): validated and committed in the request, its stages run in-process.
import type { SubjectKind } from "./subject-kind";

export const factWriteKind: SubjectKind = {
  type: "fact_write",
  source: "fact_write",
  alwaysBackground: false,
  groupable: false,
  parsed: false,
  direct: true,
  commitsApproved: false,
  maintenanceSkippable: false,
  chainable: false,
  instructs: "always",
  versioned: false,
};
