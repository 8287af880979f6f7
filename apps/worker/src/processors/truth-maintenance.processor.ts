// truth_maintenance: applies supersession, conflicts, uncertainty resolution and revocation
// for one commit, then embeds what the commit wrote when an embedding model is configured.
// Without embedding (and for a turn) it is applied in the transaction that records the stage's
// success; otherwise the first step is checkpointed in its own, so a retry after an embedding
// provider failure only embeds. A new version of a document is checkpointed twice: its facts placed, then
// maintained once its previous version has retired.
import { itemResult, kindOf, truthMaintained, type CommittedRefs } from "@recall/contracts";
import type { DbOrTx, Tx } from "@recall/db";
import {
  applyTruthMaintenance,
  applyTruthMaintenanceIn,
  applyTruthMaintenanceMany,
  closeReviewCommit,
  committedRefs,
  committedRefsMany,
  documentAwaitsReview,
  embedCommitted,
  retirePreviousVersion,
  type TruthMaintenanceRun,
} from "@recall/memory";
import {
  WorkError,
  markFactsPlaced,
  markTruthMaintained,
  truthMaintainedNow,
  type ClaimedWork,
  type StageContext,
  type LoadingStage,
} from "@recall/pipeline";
import type { WorkerDeps } from "../deps";
import { singleValuedPredicates } from "../services/skill-types";
import { inputOf } from "../services/subject-loader";

/** A group's turns written together: each turn's run, applied at once once all are in (applyTruthMaintenanceMany). */
interface TruthBatch {
  runs: TruthMaintenanceRun[];
}

export function truthMaintenanceProcessor(deps: WorkerDeps): LoadingStage<CommittedRefs, TruthBatch> {
  return {
    load: committedRefsOf,
    loadMany: committedRefsOfMany,
    // A group's turns: their locks, facts and open uncertainties read at once, then each applied in turn.
    prepareWrites: async (): Promise<TruthBatch> => ({ runs: [] }),
    completeWrites: async (tx, batch) => {
      await applyTruthMaintenanceMany(tx, batch.runs);
    },
    async process(ctx) {
      const { item, claim, input: refs, payload } = ctx;
      // The document a commit (its own, or a review commit of its candidates) wrote from: its previous version retires.
      const input = inputOf(claim);
      const documentId = kindOf(input.type).versioned ? input.id : undefined;
      const options = {
        turnId: kindOf(payload.subjectType).source === "turn" ? payload.subjectId : undefined,
        singleValued: singleValuedPredicates(deps, claim.plan),
      };
      const applied = truthMaintained(item);
      // A review commit's approved reviews are committed with the truth maintenance that places their facts.
      const reviewsDone = async (tx: Tx) => {
        if (kindOf(item.subjectType).commitsApproved) await closeReviewCommit(tx, item.subjectId, "committed");
      };
      if (deps.config.RECALL_EMBEDDING_MODEL === undefined && documentId === undefined) {
        if (applied) return { status: "succeeded" };
        const run = { refs, options: { ...options, onApplied: reviewsDone } };
        return {
          status: "succeeded",
          output: truthMaintainedNow(),
          write: async (tx, batch) => {
            if (batch) batch.runs.push(run);
            else await applyTruthMaintenanceIn(tx, run.refs, run.options);
          },
        };
      }
      // A versioned document is maintained (committed, to its readers and its webhook) once its previous version has
      // retired too: until then a reader would still find what only the old version said. Its facts placed are
      // checkpointed on their own, so a retry between the two retires without placing them again.
      const placed = documentId !== undefined && itemResult("truth_maintenance", item.payload).facts_placed_at !== undefined;
      const onApplied = async (tx: Tx) => {
        await reviewsDone(tx);
        if (documentId !== undefined) await markFactsPlaced(tx, item.id);
        else await checkpoint(deps, tx, item.id);
      };
      if (!applied && !placed) await applyTruthMaintenance(deps.db, refs, { ...options, onApplied });
      return embedAfter(deps, ctx, documentId, applied);
    },
  };
}

async function checkpoint(deps: WorkerDeps, db: DbOrTx, workItemId: string): Promise<void> {
  await markTruthMaintained(db, workItemId);
  await deps.faultPoint();
}

/** What the subject's commit produced, from memory's record of it (written with the commit, read in the claim's transaction). */
async function committedRefsOf(tx: Tx, claim: ClaimedWork): Promise<CommittedRefs> {
  const { subjectType, subjectId } = claim.item;
  const commit = await tx.workItem.findUnique({
    where: { queue_subjectType_subjectId: { queue: "commit_artifacts", subjectType, subjectId } },
    select: { id: true },
  });
  const refs = commit && (await committedRefs(tx, commit.id));
  if (!refs) throw new WorkError("internal", `no commit record for ${subjectType} ${subjectId}`, true);
  return refs;
}

/** `committedRefsOf` for a group's turns: their commits' items, then their records, in two reads. */
async function committedRefsOfMany(tx: Tx, claims: ClaimedWork[]): Promise<CommittedRefs[]> {
  const key = (subjectType: string, subjectId: string) => `${subjectType}:${subjectId}`;
  const commits = await tx.workItem.findMany({
    where: {
      queue: "commit_artifacts",
      subjectType: { in: [...new Set(claims.map((c) => c.item.subjectType))] },
      subjectId: { in: claims.map((c) => c.item.subjectId) },
    },
    select: { id: true, subjectType: true, subjectId: true },
  });
  const commitOf = new Map(commits.map((c) => [key(c.subjectType, c.subjectId), c.id]));
  const refs = await committedRefsMany(tx, [...commitOf.values()]);
  return claims.map(({ item: { subjectType, subjectId } }) => {
    const commitId = commitOf.get(key(subjectType, subjectId));
    const found = commitId && refs.get(commitId);
    if (!found) throw new WorkError("internal", `no commit record for ${subjectType} ${subjectId}`, true);
    return found;
  });
}

/**
 * A new version of a source replaces the old one once its own facts are in place: what only the old
 * version said is retracted (idempotent, so a retry retracts nothing twice). Facts it waits to have
 * reviewed are not in place yet: the old version stays until the last review is decided (the commit of
 * a document's reviews comes here too, as its document). Then the commit's facts are embedded, when an
 * embedding model is configured.
 */
async function embedAfter(deps: WorkerDeps, ctx: StageContext<CommittedRefs>, documentId: string | undefined, maintained: boolean) {
  const { payload, claim, input: refs, signal } = ctx;
  const singleValued = singleValuedPredicates(deps, claim.plan);
  if (documentId !== undefined && !maintained) {
    if (!(await documentAwaitsReview(deps.db, documentId)))
      await retirePreviousVersion(deps.db, { contextId: payload.contextId, documentId, singleValued });
    await checkpoint(deps, deps.db, ctx.item.id);
  }
  const embedder = deps.embedder();
  if (!embedder) return { status: "succeeded" as const };
  const report = await embedCommitted(deps.db, embedder, { contextId: payload.contextId, refs }, signal);
  return { status: "succeeded" as const, tokensUsed: report.tokensUsed };
}
