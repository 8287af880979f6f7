// Direct writes (POST /facts): the caller states facts instead of sending text. They
// take the same path as extracted candidates (validateCandidate, commitCandidates,
// applyTruthMaintenance) with subject type `fact_write` and stage `direct`, and leave
// the same work items and attempt records, so status and provenance treat them like
// any turn. Unlike turns they run in-process, synchronously: the caller gets its answer
// after commit and truth maintenance. A stage that fails in-process leaves the write with a
// worker (see WriteFactsResult), never half-answered. If this process dies in between, the
// truth_maintenance work item is left `queued` and the sweeper hands it to a worker; if it
// dies during a stage, that stage's item is left `running` and the sweeper takes it back once
// its lease has passed (packages/queues stale-running.ts). Commit is idempotent per work item.
import { transaction, type Db, type KnowledgeCandidate, type Prisma, type Tx } from "@recall/db";
import { commitCandidates, type CommitSummary } from "./commit";
import { prepareDirectWrite, type DirectItem, type FieldError } from "./fact-write-diff";
import { normaliseScope } from "../scope";
import { ensureStageItem, markTruthMaintained, runStageAttempt, type StageItemRef } from "./stage-work";
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

interface StoredWrite {
  ok: true;
  /** The commit_artifacts work item; its siblings (validate, truth maintenance) share the subject. */
  workItemId: string;
  factWriteId: string;
  traceId: string;
}

type Committed = Omit<CommitSummary, "skipped" | "retracted" | "tokensUsed" | "disambiguationFailures">;

/**
 * How far the write got. Once stored, a write is never an error: `applied` is the whole write;
 * `committed` means truth maintenance failed after the commit, and `stored` that the commit
 * failed (rolled back whole). Either way `pendingWorkItemId` is the stage a worker must finish
 * (its item is left dead by the in-process attempt; the caller queues it again), so nothing
 * accepted is lost and a client's retry is never a second write.
 */
export type WriteFactsResult =
  | (StoredWrite & {
      outcome: "applied";
      /** Checkpointed after truth maintenance, so a worker can take it on to embed the write (see stage-work.ts). */
      truthMaintenanceWorkItemId: string;
      committed: Committed;
      truthMaintenance: TruthMaintenanceReport;
    })
  | (StoredWrite & {
      outcome: "committed";
      committed: Committed;
      /** Undefined when even reading it failed: the commit created it queued, so the sweeper hands it to a worker. */
      pendingWorkItemId?: string;
      failure: string;
    })
  | (StoredWrite & { outcome: "stored"; pendingWorkItemId: string; failure: string })
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
  const base: StoredWrite = { ok: true, workItemId: commitItem.id, factWriteId: stored.ref.subjectId, traceId: input.traceId };
  const source = { ...stored.source, workItemId: commitItem.id };
  let summary: CommitSummary;
  try {
    summary = await runStageAttempt(db, commitItem, () =>
      commitCandidates(db, source, stored.candidates, { inlineTruthMaintenance: true }),
    );
  } catch (err) {
    return { ...base, outcome: "stored", pendingWorkItemId: commitItem.id, failure: messageOf(err) };
  }
  return { ...base, ...(await maintainCommitted(db, input, stored.ref, { ...summary, scope: source.scope })) };
}

/** Truth maintenance for a committed write, in-process; a failure leaves its item for a worker. */
async function maintainCommitted(db: Db, input: WriteFactsInput, ref: Omit<StageItemRef, "queue">, summary: CommitSummary & CommittedRefs) {
  const { skipped: _s, retracted: _r, tokensUsed: _t, disambiguationFailures: _d, scope: _scope, ...committed } = summary;
  let tmItemId: string | undefined;
  try {
    const tmItem = await ensureStageItem(db, { ...ref, queue: "truth_maintenance" });
    tmItemId = tmItem.id;
    const onApplied = (tx: Tx) => markTruthMaintained(tx, tmItem.id);
    const report = await runStageAttempt(db, tmItem, () =>
      applyTruthMaintenance(db, summary, { singleValued: input.singleValued, onApplied }),
    );
    return { outcome: "applied" as const, truthMaintenanceWorkItemId: tmItem.id, committed, truthMaintenance: report };
  } catch (err) {
    return { outcome: "committed" as const, committed, pendingWorkItemId: tmItemId, failure: messageOf(err) };
  }
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

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
