// A direct write (POST /facts): validated and committed in the request, its stages run in-process.
import { defineKind } from "./subject-kind";

export const factWriteKind = defineKind({
  type: "fact_write",
  source: "fact_write",
  direct: true,
  instructs: "always",
});
