// A batch of turns (POST …/turns/batch): its job runs its turns' stages together, each turn keeping its own items.
import { defineKind } from "./subject-kind";

export const batchKind = defineKind({
  type: "batch",
  group: "batch",
});
