// validate_artifacts: checks every staged candidate of the subject and records its errors
// (see ValidationService). Invalid candidates never fail the stage; they are reported in
// the subject's status and the valid ones go on to commit.
import type { LoadingStage } from "@recall/pipeline";
import type { WorkerDeps } from "../deps";
import {
  ValidationService,
  loadValidationInput,
  loadValidationInputs,
  writeVerdicts,
  type ValidationInput,
  type VerdictBatch,
} from "../services/validation.service";

export function validateArtifactsProcessor(deps: WorkerDeps): LoadingStage<ValidationInput, VerdictBatch> {
  const validation = new ValidationService(deps);
  return {
    load: loadValidationInput,
    loadMany: loadValidationInputs,
    // A group's turns: every verdict of all of them in one statement.
    prepareWrites: async (): Promise<VerdictBatch> => ({ verdicts: [] }),
    completeWrites: (tx, prepared) => writeVerdicts(tx, prepared.verdicts),
    process: async (ctx) => validation.validate(ctx),
  };
}
