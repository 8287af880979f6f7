// truth_maintenance: applies supersession, conflicts, uncertainty resolution and revocation
// for one commit, then embeds what the commit wrote when an embedding model is configured.
// The first step is checkpointed, so a retry after an embedding provider failure only embeds.
import { WorkError, type StageProcessor, type StagePayload } from "@recall/queues";
import { CommittedRefs } from "@recall/contracts";
import { applyTruthMaintenance, embedCommitted, markTruthMaintained, retirePreviousVersion, truthMaintained } from "@recall/memory";
import type { WorkItem } from "@recall/db";
import type { WorkerDeps } from "../deps";
import { singleValuedPredicates } from "../services/skill-types";

export function truthMaintenanceProcessor(deps: WorkerDeps): StageProcessor {
  return async ({ item, payload, signal }) => {
    const refs = await committedRefs(deps, payload);
    if (!truthMaintained(item)) await maintain(deps, item, payload, refs);
    if (payload.subjectType === "document") await retirePrevious(deps, payload);
    const embedder = deps.embedder();
    if (!embedder) return { status: "succeeded" };
    const report = await embedCommitted(deps.db, embedder, { contextId: payload.contextId, refs }, signal);
    return { status: "succeeded", tokensUsed: report.tokensUsed };
  };
}

async function committedRefs(deps: WorkerDeps, payload: StagePayload): Promise<CommittedRefs> {
  const commitItem = await deps.db.workItem.findUnique({
    where: { queue_subjectType_subjectId: { queue: "commit_artifacts", subjectType: payload.subjectType, subjectId: payload.subjectId } },
  });
  const event = commitItem && (await deps.db.outboxEvent.findUnique({ where: { workItemId: commitItem.id } }));
  if (!event) throw new WorkError("internal", `no committed outbox event for ${payload.subjectType} ${payload.subjectId}`, true);
  return CommittedRefs.parse(event.payload);
}

async function maintain(deps: WorkerDeps, item: WorkItem, payload: StagePayload, refs: CommittedRefs): Promise<void> {
  await applyTruthMaintenance(deps.db, refs, {
    turnId: payload.subjectType === "turn" ? payload.subjectId : undefined,
    singleValued: await singleValuedPredicates(deps, payload.subjectType, payload.subjectId),
    onApplied: async (tx) => {
      await markTruthMaintained(tx, item.id);
      await deps.faultPoint();
    },
  });
}

/**
 * A new version of a source replaces the old one once its own facts are in place: what
 * only the old version said is retracted. Idempotent, so a retry (e.g. after an embedding
 * failure) retracts nothing twice.
 */
async function retirePrevious(deps: WorkerDeps, payload: StagePayload): Promise<void> {
  await retirePreviousVersion(deps.db, {
    contextId: payload.contextId,
    documentId: payload.subjectId,
    singleValued: await singleValuedPredicates(deps, payload.subjectType, payload.subjectId),
  });
}
