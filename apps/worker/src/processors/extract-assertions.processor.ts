// extract_assertions: extracts the subject's text and stages candidates (see
// ExtractionService). Candidates are written only when every unit succeeded, with the stage's
// success, so a failure leaves nothing partial; the work item still records how far it got and
// what it cost. The known entities are read once, in the claim's transaction.
import { turnSourceText } from "@recall/contracts";
import type { StageHandler } from "@recall/pipeline";
import type { WorkerDeps } from "../deps";
import { ExtractionService } from "../services/extraction.service";
import { loadKnownMemory, type KnownMemory } from "../services/known-memory";

export function extractAssertionsProcessor(deps: WorkerDeps): StageHandler<KnownMemory> {
  const extraction = new ExtractionService(deps);
  return {
    // A turn's own words pick the entities it names first (a document's nodes are read later: the newest only).
    load: (tx, claim) => loadKnownMemory(tx, claim.item.contextId, claim.subject.turn ? [turnSourceText(claim.subject.turn)] : []),
    process: (ctx) => extraction.run(ctx),
  };
}
