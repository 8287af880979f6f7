// commit_artifacts: writes the subject's valid candidates as memory in one transaction.
import type { StageProcessor } from "@recall/queues";
import { commitCandidates } from "@recall/memory";
import type { WorkerDeps } from "../deps";
import { loadSubject } from "../subject-loader";

export function commitArtifactsProcessor(deps: WorkerDeps, onCommitted: () => void): StageProcessor {
  return async ({ item, payload }) => {
    const subject = await loadSubject(deps.db, payload);
    const candidates = await deps.db.knowledgeCandidate.findMany({
      where: { subjectType: payload.subjectType, subjectId: payload.subjectId, status: { in: ["valid", "committed"] } },
      orderBy: { ordinal: "asc" },
    });
    const summary = await commitCandidates(
      deps.db,
      {
        contextId: subject.contextId,
        workItemId: item.id,
        subjectType: subject.type,
        subjectId: subject.id,
        turnId: subject.turnId,
        documentId: subject.documentId,
        scope: subject.scope,
        occurredAt: subject.occurredAt,
        traceId: subject.traceId,
        nodeOffsets: new Map(subject.units.filter((u) => u.nodeId).map((u) => [u.nodeId!, u.offset])),
      },
      candidates.filter((c) => c.status === "valid"),
    );
    onCommitted();
    return { status: summary.skipped ? "skipped" : "succeeded" };
  };
}
