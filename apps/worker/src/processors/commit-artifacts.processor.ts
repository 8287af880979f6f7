// commit_artifacts: writes the subject's valid candidates as memory in the transaction that
// records the stage's success (and creates truth maintenance's work item). Contested entity
// names are put to the strong model first, where one is configured, before that transaction opens.
// Candidates the context's review rule holds wait as pending reviews instead; a review commit (subject
// type `review`) later writes the approved ones of one input, with that input as their source.
import { itemResult, kindOf } from "@recall/contracts";
import type { KnowledgeCandidate, Tx, WorkItem } from "@recall/db";
import {
  committedRefs,
  commitPlanned,
  planCommit,
  prepareCommits,
  splitForReview,
  type CommitCheck,
  type CommitSource,
  type DisambiguationCheckpoint,
} from "@recall/memory";
import { commitAnnouncer, truthMaintainedNow, writeCheckpoint, type ClaimedWork, type StageHandler } from "@recall/pipeline";
import type { WorkerDeps } from "../deps";
import { commitBudget, modelDisambiguator, strongModel } from "../services/entity-disambiguator";
import { candidatesOf, documentUnits, stageSubject, type StageSubject, type TextUnit } from "../services/subject-loader";

interface CommitInput {
  candidates: KnowledgeCandidate[];
  units: TextUnit[];
  /** A pass of this commit ran before (an input extracted again): with nothing new, truth maintenance has nothing to redo. */
  committedBefore?: boolean;
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

/** `loadCommitInput` for a group's turns: their valid candidates in one read. */
async function loadCommitInputs(tx: Tx, claims: ClaimedWork[]): Promise<CommitInput[]> {
  if (claims.some((c) => kindOf(c.item.subjectType).commitsApproved)) return Promise.all(claims.map((c) => loadCommitInput(tx, c)));
  const bySubject = await candidatesOf(tx, claims, "valid");
  const inputs: CommitInput[] = [];
  for (const [i, claim] of claims.entries()) {
    const candidates = bySubject[i]!;
    const committedBefore = candidates.length === 0 && (await committedRefs(tx, claim.item.id)) !== undefined;
    inputs.push({ candidates, units: await documentUnits(tx, claim), committedBefore });
  }
  return inputs;
}

export function commitArtifactsProcessor(deps: WorkerDeps): StageHandler<CommitInput> {
  const strong = strongModel(deps.config, deps.logger);
  return {
    load: loadCommitInput,
    loadMany: loadCommitInputs,
    // A group's turns: every commit's locks and checks at once, not two statements a turn.
    prepareWrites: (tx, claims) =>
      prepareCommits(
        tx,
        claims.map((c) => ({ workItemId: c.item.id, subjectId: c.item.subjectId, contextId: c.item.contextId })),
      ),
    async process({ item, claim, input, logger }) {
      const subject = stageSubject(claim, input.units);
      const source = commitSource(item, subject);
      const disambiguator = strong && modelDisambiguator(strong, commitBudget(deps.config, subject.contextConfig));
      // A review commit's candidates were approved: the rule held them once and does not hold them again.
      const rule = kindOf(item.subjectType).commitsApproved ? undefined : subject.contextConfig.review;
      const { commit, hold } = splitForReview(input.candidates, rule, subject.scope);
      const options = { disambiguator, checkpoint: checkpointOf(deps, item), announce: commitAnnouncer({ relayed: true }), hold };
      const plan = await planCommit(deps.db, source, commit, options);
      for (const failure of plan.failures) logger.warn(failure, "entity disambiguation failed; a new entity was created");
      return {
        status: "succeeded",
        tokensUsed: plan.tokensUsed,
        write: async (tx, prepared) => {
          const checked = (prepared as Map<string, CommitCheck> | undefined)?.get(item.id);
          await commitPlanned(tx, source, commit, plan, { ...options, checked });
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
