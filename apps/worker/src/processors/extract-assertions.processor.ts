// extract_assertions: resolves the plan, runs the staged extractor over every text
// unit of the subject and stages the result as knowledge candidates. Candidates are
// written only when every unit succeeded, so a failure leaves nothing partial.
import type { CandidateKind, Db, ExtractionStage, Prisma, WorkItem } from "@recall/db";
import { transaction } from "@recall/db";
import type { ExtractionDiff, StageOutcome } from "@recall/extraction";
import type { StageProcessor } from "@recall/queues";
import type { WorkerDeps } from "../deps";
import { loadKnownMemory } from "../known-memory";
import { budgetLimits, ensurePlan } from "../plan";
import { loadSubject, type Subject, type TextUnit } from "../subject-loader";

const KINDS: [keyof ExtractionDiff, CandidateKind][] = [
  ["entities", "entity"],
  ["attributes", "attribute"],
  ["relations", "relation"],
  ["instructions", "instruction"],
  ["revocations", "revocation"],
  ["uncertainties", "uncertainty"],
];

export function extractAssertionsProcessor(deps: WorkerDeps): StageProcessor {
  return async ({ item, payload, signal }) => {
    const subject = await loadSubject(deps.db, payload);
    const guidance = await ensurePlan(deps, subject);
    const known = await loadKnownMemory(deps.db, subject.contextId);
    const extractor = deps.extractorFor(budgetLimits(deps.config, subject.contextConfig));
    const staged: Prisma.KnowledgeCandidateCreateManyInput[] = [];
    const outcomes: Record<string, unknown>[] = [];
    let tokensUsed = 0;
    for (const unit of subject.units) {
      const outcome = await extractor.extract(
        {
          text: unit.text,
          kind: subject.type === "turn" ? "turn" : "document_node",
          role: subject.role,
          referenceTime: subject.occurredAt,
          ...known,
        },
        guidance,
        signal,
      );
      tokensUsed += outcome.tokensUsed;
      outcomes.push({ node_id: unit.nodeId ?? null, stage: outcome.stage, model: outcome.model ?? null, reason: outcome.reason });
      staged.push(...toCandidates(item, subject, unit, outcome, staged.length));
      // Later chunks of the same document see the entities found in earlier ones.
      known.knownEntities.push(...outcome.diff.entities.map((e) => ({ id: "", name: e.name, type: e.type, aliases: e.aliases })));
    }
    await stageCandidates(deps.db, item, staged, outcomes);
    return { status: "succeeded", tokensUsed };
  };
}

function toCandidates(
  item: WorkItem,
  subject: Subject,
  unit: TextUnit,
  outcome: StageOutcome,
  start: number,
): Prisma.KnowledgeCandidateCreateManyInput[] {
  const rows: Prisma.KnowledgeCandidateCreateManyInput[] = [];
  for (const [field, kind] of KINDS) {
    for (const value of outcome.diff[field]) {
      rows.push({
        contextId: subject.contextId,
        workItemId: item.id,
        subjectType: subject.type,
        subjectId: subject.id,
        documentNodeId: unit.nodeId,
        turnId: subject.turnId,
        ordinal: start + rows.length,
        kind,
        payload: value as Prisma.InputJsonValue,
        stage: outcome.stage as ExtractionStage,
        model: outcome.model,
      });
    }
  }
  return rows;
}

/** Replaces whatever an earlier attempt staged, so a retry never doubles candidates. */
async function stageCandidates(
  db: Db,
  item: WorkItem,
  rows: Prisma.KnowledgeCandidateCreateManyInput[],
  outcomes: Record<string, unknown>[],
): Promise<void> {
  await transaction(db, async (tx) => {
    await tx.workItem.update({ where: { id: item.id }, data: { payload: { outcomes } as Prisma.InputJsonValue } });
    await tx.knowledgeCandidate.deleteMany({ where: { workItemId: item.id } });
    if (rows.length > 0) await tx.knowledgeCandidate.createMany({ data: rows });
  });
}
