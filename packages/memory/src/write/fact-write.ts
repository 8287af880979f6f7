// Direct writes (POST /facts): the caller states facts instead of sending text. They
// take the same path as extracted candidates (validateCandidate, commitCandidates,
// applyTruthMaintenance) with subject type `fact_write` and stage `direct`, and leave
// the same work items and attempt records, so status and provenance treat them like
// any turn. Unlike turns they run in-process, synchronously: the caller gets its answer
// after commit and truth maintenance. If this process dies in between, the
// truth_maintenance work item is left `queued` and the sweeper hands it to a worker; if it
// dies during a stage, that stage's item is left `running` and the sweeper takes it back once
// its lease has passed (packages/queues stale-running.ts). Commit is idempotent per work item.
import { transaction, type Db, type KnowledgeCandidate, type Prisma, type Tx } from "@recall/db";
import { commitCandidates, type CommitSummary } from "./commit";
import { prepareDirectWrite, type DirectItem, type FieldError } from "./fact-write-diff";
import { normaliseScope } from "../scope";
import { ensureStageItem, markTruthMaintained, runStageAttempt } from "./stage-work";
import { applyTruthMaintenance, type CommittedRefs, type TruthMaintenanceReport } from "../truth/truth-maintenance";
import { validateCandidate } from "./validate";

export interface WriteFactsInput {
  contextId: string;
  scope: string[];
  /** { entities, attributes, relations, instructions, uncertainties }, each item with its memory_category. */
  diff: unknown;
  traceId: string;
  /** Single-valued predicates beyond the defaults (a direct write has no skill to name them). */
  singleValued?: ReadonlySet<string>;
}

export type WriteFactsResult =
  | {
      ok: true;
      /** The commit_artifacts work item; its siblings (validate, truth maintenance) share the subject. */
      workItemId: string;
      /** Checkpointed after truth maintenance, so a worker can take it on to embed the write (see stage-work.ts). */
      truthMaintenanceWorkItemId: string;
      factWriteId: string;
      traceId: string;
      committed: Omit<CommitSummary, "skipped" | "retracted" | "tokensUsed" | "disambiguationFailures">;
      truthMaintenance: TruthMaintenanceReport;
    }
  | { ok: false; errors: FieldError[] };

const SCOPE_ENTRY = /^[A-Za-z0-9_.-]+=[^=\s][^\s]*$/;

export async function writeFacts(db: Db, input: WriteFactsInput): Promise<WriteFactsResult> {
  const prepared = prepareDirectWrite(input.diff);
  const validated = prepared.items.map((item) => ({
    item,
    result: validateCandidate(item.kind, item.payload, { sourceText: prepared.text }),
  }));
  const errors = [...scopeErrors(input.scope), ...prepared.errors, ...validated.flatMap(({ item, result }) => itemErrors(item, result))];
  if (errors.length > 0) return { ok: false, errors };
  const payloads = validated.map(({ item, result }) => ({ item, payload: (result as { payload: Record<string, unknown> }).payload }));
  const stored = await storeValidated(db, input, prepared.text, payloads);
  const commitItem = await ensureStageItem(db, { ...stored.ref, queue: "commit_artifacts" });
  const source = { ...stored.source, workItemId: commitItem.id };
  const summary = await runStageAttempt(db, commitItem, () =>
    commitCandidates(db, source, stored.candidates, { inlineTruthMaintenance: true }),
  );
  const tmItem = await ensureStageItem(db, { ...stored.ref, queue: "truth_maintenance" });
  const refs: CommittedRefs = { ...summary, scope: source.scope };
  const report = await runStageAttempt(db, tmItem, () =>
    applyTruthMaintenance(db, refs, { singleValued: input.singleValued, onApplied: (tx) => markTruthMaintained(tx, tmItem.id) }),
  );
  const { skipped: _s, retracted: _r, tokensUsed: _t, disambiguationFailures: _d, ...committed } = summary;
  return {
    ok: true,
    workItemId: commitItem.id,
    truthMaintenanceWorkItemId: tmItem.id,
    factWriteId: stored.ref.subjectId,
    traceId: input.traceId,
    committed,
    truthMaintenance: report,
  };
}

function scopeErrors(scope: unknown): FieldError[] {
  if (!Array.isArray(scope)) return [{ field: "scope", message: "must be a list of key=value entries" }];
  return scope.flatMap((entry, i) =>
    typeof entry === "string" && SCOPE_ENTRY.test(entry) ? [] : [{ field: `scope.${i}`, message: "must look like key=value" }],
  );
}

function itemErrors(item: DirectItem, result: ReturnType<typeof validateCandidate>): FieldError[] {
  if (result.ok) return [];
  const issues = item.withoutEvidence ? result.issues.filter((i) => !i.field.startsWith("evidence")) : result.issues;
  return issues.map((issue) => ({ field: `${item.section}.${item.index}.${issue.field}`, message: issue.message }));
}

/** Stores the write, its candidates (already valid) and its finished validate_artifacts work item together. */
async function storeValidated(
  db: Db,
  input: WriteFactsInput,
  text: string,
  items: { item: DirectItem; payload: Record<string, unknown> }[],
) {
  const scope = normaliseScope(input.scope);
  return transaction(db, async (tx) => {
    const write = await tx.factWrite.create({
      data: { contextId: input.contextId, payload: input.diff as Prisma.InputJsonValue, text, scope, traceId: input.traceId },
    });
    const ref = { contextId: input.contextId, subjectType: "fact_write", subjectId: write.id, traceId: input.traceId };
    const validateItem = await ensureStageItem(tx, { ...ref, queue: "validate_artifacts" });
    await recordSucceeded(tx, validateItem.id, write.createdAt);
    const candidates: KnowledgeCandidate[] = [];
    for (const [ordinal, { item, payload }] of items.entries()) {
      candidates.push(
        await tx.knowledgeCandidate.create({
          data: {
            contextId: ref.contextId,
            subjectType: ref.subjectType,
            subjectId: ref.subjectId,
            workItemId: validateItem.id,
            ordinal,
            kind: item.kind,
            payload: payload as Prisma.InputJsonValue,
            status: "valid",
            stage: "direct",
          },
        }),
      );
    }
    const source = { ...ref, factWriteId: write.id, scope, occurredAt: write.createdAt, nodeOffsets: new Map<string, number>() };
    return { ref, candidates, source };
  });
}

async function recordSucceeded(tx: Tx, workItemId: string, at: Date): Promise<void> {
  await tx.workItem.update({
    where: { id: workItemId },
    data: { status: "succeeded", attempts: 1, startedAt: at, finishedAt: new Date() },
  });
  await tx.workAttempt.create({ data: { workItemId, attempt: 1, status: "succeeded", startedAt: at, finishedAt: new Date() } });
}
