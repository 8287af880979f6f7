// extract_assertions: extracts the subject's text and stages candidates (see
// ExtractionService). Candidates are written only when every unit succeeded, so a failure
// leaves nothing partial; the work item still records how far it got and what it cost.
import type { StageProcessor } from "@recall/queues";
import type { WorkerDeps } from "../deps";
import { ExtractionService } from "../services/extraction.service";

export function extractAssertionsProcessor(deps: WorkerDeps): StageProcessor {
  const extraction = new ExtractionService(deps);
  return async ({ item, payload, signal, logger }) => {
    const tokensUsed = await extraction.run(item, payload, signal, logger);
    return { status: "succeeded", tokensUsed };
  };
}
