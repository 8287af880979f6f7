// truth_maintenance: applies supersession, conflicts, uncertainty resolution and revocation for one commit.
import { WorkError, type StageProcessor } from "@recall/queues";
import { applyTruthMaintenance, type CommittedRefs } from "@recall/memory";
import type { WorkerDeps } from "../deps";
import { singleValuedPredicates } from "../skill-types";

export function truthMaintenanceProcessor(deps: WorkerDeps): StageProcessor {
  return async ({ payload }) => {
    const commitItem = await deps.db.workItem.findUnique({
      where: { queue_subjectType_subjectId: { queue: "commit_artifacts", subjectType: payload.subjectType, subjectId: payload.subjectId } },
    });
    const event = commitItem && (await deps.db.outboxEvent.findUnique({ where: { workItemId: commitItem.id } }));
    if (!event) throw new WorkError("internal", `no committed outbox event for ${payload.subjectType} ${payload.subjectId}`, true);
    await applyTruthMaintenance(deps.db, event.payload as CommittedRefs, {
      turnId: payload.subjectType === "turn" ? payload.subjectId : undefined,
      singleValued: await singleValuedPredicates(deps, payload.subjectType, payload.subjectId),
    });
    return { status: "succeeded" };
  };
}
