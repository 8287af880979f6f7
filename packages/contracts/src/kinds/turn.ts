// A turn of a session: extracted alone, in a window of its session, or by its batch's job; a caller may wait on it.
import { defineKind } from "./subject-kind";

export const turnKind = defineKind({
  type: "turn",
  source: "turn",
  groupable: true,
  maintenanceSkippable: true,
  chainable: true,
  unit: "turn",
  instructs: "from the user",
});
