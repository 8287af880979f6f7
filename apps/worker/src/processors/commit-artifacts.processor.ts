// commit_artifacts: writes the subject's valid candidates as memory in the transaction that
// records the stage's success (and creates truth maintenance's work item). Contested entity
// names are put to the strong model first, where one is configured, before that transaction opens.
// Candidates the context's review rule holds wait as pending reviews instead; a review commit (subject
// type `review`) later writes the approved ones of one input, with that input as their source.
import { itemResult, kindOf } from "@recall/contracts";
import type { KnowledgeCandidate, Tx, WorkItem } from "@recall/db";
import {
  committedRefs,
  committedRefsMany,
  commitPlanned,
  completeCommits,
  planCommit,
  prepareCommits,
  snapshotCommitNames,
  splitForReview,
  type CommitBatch,
  type CommitSource,
  type DisambiguationCheckpoint,
  type NameSnapshot,
} from "@recall/memory";
import { commitAnnouncer, truthMaintainedNow, writeCheckpoint, type ClaimedWork, type LoadingStage } from "@recall/pipeline";
import type { WorkerDeps } from "../deps";
import { commitBudget, modelDisambiguator, strongModel } from "../services/entity-disambiguator";
import { candidatesOf, documentUnits, stageSubject, type StageSubject, type TextUnit } from "../services/subject-loader";

interface CommitInput {
  candidates: KnowledgeCandidate[];
  units: TextUnit[];
  /** A pass of this commit ran before (an input extracted again): with nothing new, truth maintenance has nothing to redo. */
  committedBefore?: boolean;
  /** What the names of a group's candidates matched, read at once with its claim, for the disambiguator's plan. */
  known?: NameSnapshot;
}

async function loadCommitInput(tx: Tx, claim: ClaimedWork): Promise<CommitInput> {
  const { subjectType, subjectId } = claim.item;
  const where = kindOf(subjectType).commitsApproved
    ? { status: "approved" as const, review: { commitId: subjectId } }
    : { subjectType, subjectId, status: "valid" as const };
  const candidates = await tx.knowledgeCandidate.findMany({ where, orderBy: { ordinal: "asc" } });
  const committedBefore = candidates.length === 0 && (await committedRefs(tx, claim.item.id)) !== undefined;
  return { candidates, units: await documentUnits(tx, claim), committedBefore };
}

/**
 * `loadCommitInput` for a group's turns: their valid candidates in one read, and, when a disambiguator will plan
 * their commits (`planNames`), what all their names match in one more.
 */
async function loadCommitInputs(tx: Tx, claims: ClaimedWork[], planNames: boolean): Promise<CommitInput[]> {
  if (claims.some((c) => kindOf(c.item.subjectType).commitsApproved)) return Promise.all(claims.map((c) => loadCommitInput(tx, c)));
  const bySubject = await candidatesOf(tx, claims, "valid");
  // Whether a pass of the commit ran before matters only to a subject with nothing new: their records in one read.
  const before = await committedRefsMany(
    tx,
    claims.filter((_, i) => bySubject[i]!.length === 0).map((c) => c.item.id),
  );
  const contextId = claims[0]?.item.contextId;
  const sameContext = claims.every((c) => c.item.contextId === contextId);
  const known = planNames && contextId && sameContext ? await snapshotCommitNames(tx, contextId, bySubject.flat()) : undefined;
  const inputs: CommitInput[] = [];
  for (const [i, claim] of claims.entries()) {
    const candidates = bySubject[i]!;
    const committedBefore = candidates.length === 0 && before.has(claim.item.id);
    inputs.push({ candidates, units: await documentUnits(tx, claim), committedBefore, known });
  }
  return inputs;
}

export function commitArtifactsProcessor(deps: WorkerDeps): LoadingStage<CommitInput, CommitBatch> {
  const strong = strongModel(deps.config, deps.logger);
  const announce = commitAnnouncer({ relayed: true });
  return {
    load: loadCommitInput,
    loadMany: (tx, claims) => loadCommitInputs(tx, claims, strong !== undefined),
    // A group's turns: every commit's locks, checks and entities at once, and their rows written together after.
    prepareWrites: (tx, claims, inputs) =>
      prepareCommits(
        tx,
        claims.map((c, i) => ({
          source: { workItemId: c.item.id, subjectId: c.item.subjectId, contextId: c.item.contextId },
          candidates: inputs[i]!.candidates,
        })),
        announce,
      ),
    completeWrites: (tx, batch) => completeCommits(tx, batch),
    async process({ item, claim, input, logger }) {
      const subject = stageSubject(claim, input.units);
      const source = commitSource(item, subject);
      const disambiguator = strong && modelDisambiguator(strong, commitBudget(deps.config, subject.contextConfig));
      // A review commit's candidates were approved: the rule held them once and does not hold them again.
      const rule = kindOf(item.subjectType).commitsApproved ? undefined : subject.contextConfig.review;
      const { commit, hold } = splitForReview(input.candidates, rule, subject.scope);
      const options = { disambiguator, checkpoint: checkpointOf(deps, item), announce, hold };
      const plan = await planCommit(deps.db, source, commit, { ...options, known: input.known });
      for (const failure of plan.failures) logger.warn(failure, "entity disambiguation failed; a new entity was created");
      return {
        status: "succeeded",
        tokensUsed: plan.tokensUsed,
        write: async (tx, batch) => {
          await commitPlanned(tx, source, commit, plan, { ...options, batch });
        },
        nextDone:
          nothingToMaintain(deps, item, commit) || (commit.length === 0 && input.committedBefore) ? truthMaintainedNow() : undefined,
      };
    },
  };
}

/** Kinds whose commit gives truth maintenance work: facts to place among earlier ones, instructions to revoke. */
const MAINTAINED = new Set(["attribute", "relation", "revocation"]);

/**
 * A turn's commit with none of those, and no embedding model to embed for: its truth maintenance would
 * change nothing (a document's also retires its previous version), so its item is created done.
 */
function nothingToMaintain(deps: WorkerDeps, item: WorkItem, candidates: readonly KnowledgeCandidate[]): boolean {
  return (
    kindOf(item.subjectType).maintenanceSkippable &&
    deps.config.RECALL_EMBEDDING_MODEL === undefined &&
    !candidates.some((c) => MAINTAINED.has(c.kind))
  );
}

/** The disambiguator's answers, checkpointed on the commit's item so a re-run asks nothing twice. */
function checkpointOf(deps: WorkerDeps, item: WorkItem): DisambiguationCheckpoint {
  return {
    decided: itemResult("commit_artifacts", item.payload).disambiguations,
    save: (disambiguations) => writeCheckpoint(deps.db, item.id, { value: { disambiguations } }),
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
    reviewCommitId: kindOf(item.subjectType).commitsApproved ? item.subjectId : undefined,
  };
}
