// Extraction of one subject (a turn or a document): resolves the plan, runs the staged
// extractor over every text unit and stages the result as knowledge candidates. Candidates are
// written (with the plan, when it changed) only when every unit succeeded, in the transaction
// that records the stage's success, so a failure leaves nothing partial; the work item still
// records how far the attempt got and what it cost.
import { transaction, toJson, type Db, type ExtractionStage, type Prisma, type Tx, type WorkItem } from "@recall/db";
import { DIFF_KINDS, StageFailure, type ExtractResult, type UnitOutcome, kindOf } from "@recall/contracts";
import { rememberEntities, type ExtractionGuidance, type Extractor, type StageOutcome } from "@recall/extraction";
import { isBackground, writeCheckpoint, type ClaimedPlan, type StageContext, type StageResult } from "@recall/pipeline";
import { extractionInputs, type Logger } from "@recall/telemetry";
import type { WorkerDeps } from "../deps";
import { restageCandidates } from "./candidate-restage";
import { ensureDocumentNodes } from "./document-nodes";
import type { KnownMemory } from "./known-memory";
import { budgetLimits, planRecorded, resolvePlan, writePlan, type ResolvedPlan } from "./plan";
import { documentUnits, extractedSubject, type Subject, type TextUnit } from "./subject-loader";

interface Run {
  subject: Subject;
  plan: ResolvedPlan;
  stored: ClaimedPlan | null;
  guidance: ExtractionGuidance;
  known: KnownMemory;
  extractor: Extractor;
  outcomes: UnitOutcome[];
  rows: Prisma.KnowledgeCandidateCreateManyInput[];
}

export class ExtractionService {
  constructor(private readonly deps: WorkerDeps) {}

  /** Extracts the subject of one claimed work item; its candidates are staged with the stage's success. */
  async run(ctx: StageContext<KnownMemory>): Promise<StageResult> {
    const { deps } = this;
    const { item, claim, signal, logger } = ctx;
    const lane = isBackground(item) ? "background" : "interactive";
    if (kindOf(item.subjectType).parsed) await ensureDocumentNodes(deps, item.subjectId, signal);
    const subject = extractedSubject(claim, await documentUnits(deps.db, claim));
    const plan = resolvePlan(deps, subject);
    // A copy: later units of a document add the entities earlier ones found.
    const known = { ...ctx.input, knownEntities: [...ctx.input.knownEntities] };
    // The token budget spans every attempt of the work item: retries spend what is left, not a fresh budget.
    const limits = budgetLimits(deps.config, subject.contextConfig);
    const extractor = deps.extractorFor({ ...limits, maxTokens: Math.max(0, limits.maxTokens - item.tokensUsed) }, lane);
    const run: Run = { subject, plan, stored: claim.plan, guidance: plan.guidance, known, extractor, outcomes: [], rows: [] };
    for (const unit of subject.units) {
      try {
        await extractUnit(run, item, unit, signal);
      } catch (err) {
        await recordFailure(deps.db, item, run, unit, logger);
        throw new StageFailure(err, extractor.tokensUsed);
      }
    }
    const result: ExtractResult = { outcomes: run.outcomes };
    // The rules' sure part goes on to validation and commit; the item says the rest waits for a model.
    const awaiting = run.outcomes.some((o) => o.awaiting_model);
    return {
      status: awaiting ? "awaiting_model" : "succeeded",
      tokensUsed: extractor.tokensUsed,
      output: { value: result, replace: true },
      write: stageCandidates(item, run),
    };
  }
}

async function extractUnit(run: Run, item: WorkItem, unit: TextUnit, signal: AbortSignal): Promise<void> {
  const { subject, known } = run;
  const outcome = await run.extractor.extract(
    {
      text: unit.text,
      kind: kindOf(subject.type).unit ?? "document_node",
      role: subject.role,
      speaker: subject.speaker,
      referenceTime: subject.occurredAt,
      ...known,
    },
    run.guidance,
    signal,
  );
  run.outcomes.push({
    node_id: unit.nodeId ?? null,
    stage: outcome.stage,
    model: outcome.model ?? null,
    reason: outcome.reason,
    tokens_used: outcome.tokensUsed,
    ...(outcome.awaitingModel ? { awaiting_model: true } : {}),
  });
  run.rows.push(...toCandidates(item, subject, unit, outcome, run.rows.length));
  rememberEntities(known, outcome.diff);
}

function toCandidates(
  item: WorkItem,
  subject: Subject,
  unit: TextUnit,
  outcome: StageOutcome,
  start: number,
): Prisma.KnowledgeCandidateCreateManyInput[] {
  const rows: Prisma.KnowledgeCandidateCreateManyInput[] = [];
  for (const [field, kind] of DIFF_KINDS) {
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
        payload: toJson(value),
        stage: outcome.stage as ExtractionStage,
        model: outcome.model,
      });
    }
  }
  return rows;
}

/**
 * Replaces whatever an earlier attempt staged, so a retry never doubles candidates, and keeps what was committed (the
 * rules' part of an input extracted again once a model is set); records the plan when it changed.
 */
function stageCandidates(item: WorkItem, run: Run): (tx: Tx) => Promise<void> {
  return async (tx) => {
    if (!planRecorded(run.plan, run.stored)) await writePlan(tx, run.plan);
    await restageCandidates(tx, [item.id], run.rows);
    // Counted once staged, so a failed attempt's finished units are not counted twice.
    for (const outcome of run.outcomes) extractionInputs.inc({ stage: outcome.stage });
  };
}

/**
 * Shows where the attempt stopped (the unit and the stage it had reached, e.g. `fast` for an
 * input that needs a model none is configured for). Nothing is staged. Best effort: the
 * original error matters more than this note, so a failure to write it is only logged.
 */
async function recordFailure(db: Db, item: WorkItem, run: Run, unit: TextUnit, logger: Logger): Promise<void> {
  const failed = { node_id: unit.nodeId ?? null, stage: run.extractor.stageReached ?? null };
  const result: ExtractResult = { outcomes: run.outcomes, failed };
  const note = async () => {
    if (planRecorded(run.plan, run.stored)) return writeCheckpoint(db, item.id, { value: result, replace: true });
    await transaction(db, async (tx) => {
      await writePlan(tx, run.plan);
      await writeCheckpoint(tx, item.id, { value: result, replace: true });
    });
  };
  await note().catch((err: Error) => {
    logger.warn({ err: err.message }, "could not record where extraction failed");
  });
}
