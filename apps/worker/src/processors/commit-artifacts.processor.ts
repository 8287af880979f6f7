// commit_artifacts: writes the subject's valid candidates as memory in one transaction.
// Contested entity names are put to the strong model first, where one is configured.
import type { StageProcessor } from "@recall/queues";
import { commitCandidates, type CommitSource } from "@recall/memory";
import type { WorkItem } from "@recall/db";
import type { WorkerDeps } from "../deps";
import { commitBudget, modelDisambiguator, strongModel } from "../services/entity-disambiguator";
import { loadStageSubject, type StageSubject } from "../services/subject-loader";

export function commitArtifactsProcessor(deps: WorkerDeps, onCommitted: () => void): StageProcessor {
  const strong = strongModel(deps.config, deps.logger);
  return async ({ item, payload, logger }) => {
    const subject = await loadStageSubject(deps.db, payload);
    const candidates = await deps.db.knowledgeCandidate.findMany({
      where: { subjectType: payload.subjectType, subjectId: payload.subjectId, status: "valid" },
      orderBy: { ordinal: "asc" },
    });
    const disambiguator = strong && modelDisambiguator(strong, commitBudget(deps.config, subject.contextConfig));
    const summary = await commitCandidates(deps.db, commitSource(item, subject), candidates, {
      disambiguator,
      faultPoint: deps.faultPoint,
    });
    for (const failure of summary.disambiguationFailures) logger.warn(failure, "entity disambiguation failed; a new entity was created");
    onCommitted();
    return { status: summary.skipped ? "skipped" : "succeeded", tokensUsed: summary.tokensUsed };
  };
}

function commitSource(item: WorkItem, subject: StageSubject): CommitSource {
  return {
    contextId: subject.contextId,
    workItemId: item.id,
    subjectType: subject.type,
    subjectId: subject.id,
    turnId: subject.turnId,
    documentId: subject.documentId,
    factWriteId: subject.factWriteId,
    scope: subject.scope,
    occurredAt: subject.occurredAt,
    traceId: subject.traceId,
    nodeOffsets: new Map(subject.units.filter((u) => u.nodeId).map((u) => [u.nodeId!, u.offset])),
  };
}
