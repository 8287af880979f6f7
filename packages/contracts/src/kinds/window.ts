// An extraction window: one model call for several turns of a session; its job runs its turns' later stages.
import { defineKind } from "./subject-kind";

export const windowKind = defineKind({
  type: "window",
  alwaysBackground: true,
  group: "window",
});
