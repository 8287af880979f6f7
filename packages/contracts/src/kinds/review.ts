// A review commit: commits the candidates a reviewer approved for a turn or a document, in the background.
import { defineKind } from "./subject-kind";

export const reviewKind = defineKind({
  type: "review",
  alwaysBackground: true,
  commitsApproved: true,
});
