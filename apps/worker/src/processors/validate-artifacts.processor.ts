// validate_artifacts: checks every staged candidate of the subject and records its errors
// (see ValidationService). Invalid candidates never fail the stage; they are reported in
// the subject's status and the valid ones go on to commit.
import type { StageProcessor } from "@recall/queues";
import type { WorkerDeps } from "../deps";
import { ValidationService } from "../services/validation.service";

export function validateArtifactsProcessor(deps: WorkerDeps): StageProcessor {
  const validation = new ValidationService(deps);
  return async ({ payload }) => {
    await validation.validate(payload);
    return { status: "succeeded" };
  };
}
