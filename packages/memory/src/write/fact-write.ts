// Direct writes (POST /facts): the caller states facts instead of sending text. They
// take the same path as extracted candidates (validateCandidate, commitPlanned,
// applyTruthMaintenanceIn) with subject type `fact_write` and stage `direct`, and leave
// the same work items and attempt records (kept by the caller's FactWriteStages, packages/pipeline'
// directStages), so status and provenance treat them like any turn. Unlike turns they run
// in-process, synchronously: the caller gets its answer after commit and truth maintenance. A
// stage that fails in-process leaves the write with a worker (see WriteFactsResult), never
// half-answered. If this process dies in between, the truth_maintenance work item is left `queued` and the sweeper
// hands it to a worker; if it dies during a stage, that stage's item is left `running` and the
// sweeper takes it back once its lease has passed (packages/pipeline stale-running.ts). Each stage's
// writes commit with its success, and commit is idempotent per work item.
import { transaction, type Db, type KnowledgeCandidate, type Prisma, type Tx } from "@recall/db";
import type { AnnounceCommit } from "../core/pipeline-records";
import { commitPlanned, type CommitSummary } from "./commit";
import { prepareDirectWrite, type DirectItem, type FieldError } from "./fact-write-diff";
import { normaliseScope } from "../core/scope";
import { applyTruthMaintenanceIn, type CommittedRefs, type TruthMaintenanceReport } from "../truth/truth-maintenance";
import { validateCandidate } from "./validate";
import { holdScopeShared } from "../core/scope-lock";
import { scopeSetIdOf } from "../core/scope-sets";

/** The work-item side of a direct write's stages: memory writes no work item itself (packages/pipeline directStages does). */
export interface FactWriteStages {
  /** In the transaction storing the write: its validation recorded as done, its commit item queued. */
  open(
    tx: Tx,
    ref: { contextId: string; subjectType: "fact_write"; subjectId: string; traceId: string },
  ): Promise<{ validateItemId: string; commitItemId: string }>;
  /** One attempt of the item, `write` in the transaction that records its success; answers its value and the item created next. */
  run<T>(
    workItemId: string,
    stage: { write(tx: Tx): Promise<T>; chainTruthMaintenance?: boolean; truthMaintained?: boolean },
  ): Promise<{ value: T; nextItemId?: string }>;
  /** The pipeline's announcement of the write's commit (truth maintenance's item is chained with the commit). */
  announce: AnnounceCommit;
}

const NO_DISAMBIGUATION = { decisions: new Map(), tokensUsed: 0, failures: [] };

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

type Committed = Omit<CommitSummary, "skipped" | "retracted" | "tokensUsed" | "disambiguationFailures" | "held">;

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
      /** Checkpointed after truth maintenance, so a worker can take it on to embed the write (packages/pipeline markTruthMaintained). */
      truthMaintenanceWorkItemId: string;
      committed: Committed;
      truthMaintenance: TruthMaintenanceReport;
    })
  | (StoredWrite & {
      outcome: "committed";
      committed: Committed;
      /** Undefined when the commit did not say which item it created (it is created queued: the sweeper hands it on). */
      pendingWorkItemId?: string;
      failure: string;
    })
  | (StoredWrite & { outcome: "stored"; pendingWorkItemId: string; failure: string })
  | { ok: false; errors: FieldError[] };

const SCOPE_ENTRY = /^[A-Za-z0-9_.-]+=[^=\s][^\s]*$/;

export async function writeFacts(db: Db, stages: FactWriteStages, input: WriteFactsInput): Promise<WriteFactsResult> {
  const prepared = prepareDirectWrite(input.diff);
  const validated = prepared.items.map((item) => ({
    item,
    result: validateCandidate(item.kind, item.payload, { sourceText: prepared.text }),
  }));
  const errors = [...scopeErrors(input.scope), ...prepared.errors, ...validated.flatMap(({ item, result }) => itemErrors(item, result))];
  if (errors.length > 0) return { ok: false, errors };
  const payloads = validated.map(({ item, result }) => ({ item, payload: (result as { payload: Record<string, unknown> }).payload }));
  const stored = await storeValidated(db, stages, input, prepared.text, payloads);
  const base: StoredWrite = { ok: true, workItemId: stored.commitItemId, factWriteId: stored.ref.subjectId, traceId: input.traceId };
  const source = { ...stored.source, workItemId: stored.commitItemId };
  let commit: { value: CommitSummary; nextItemId?: string };
  try {
    commit = await stages.run(stored.commitItemId, {
      chainTruthMaintenance: true,
      write: (tx) => commitPlanned(tx, source, stored.candidates, NO_DISAMBIGUATION, { announce: stages.announce }),
    });
  } catch (err) {
    return { ...base, outcome: "stored", pendingWorkItemId: stored.commitItemId, failure: messageOf(err) };
  }
  const refs: CommittedRefs = { ...commit.value, scope: source.scope };
  return { ...base, ...(await maintainCommitted(stages, input, commit.nextItemId, commit.value, refs)) };
}

/** Truth maintenance for a committed write, in-process; a failure leaves its item for a worker. */
async function maintainCommitted(
  stages: FactWriteStages,
  input: WriteFactsInput,
  tmItemId: string | undefined,
  summary: CommitSummary,
  refs: CommittedRefs,
) {
  const { skipped: _s, retracted: _r, tokensUsed: _t, disambiguationFailures: _d, held: _h, ...committed } = summary;
  try {
    if (!tmItemId) throw new Error("the commit created no truth_maintenance item");
    const maintained = await stages.run(tmItemId, {
      truthMaintained: true,
      write: (tx) => applyTruthMaintenanceIn(tx, refs, { singleValued: input.singleValued }),
    });
    return { outcome: "applied" as const, truthMaintenanceWorkItemId: tmItemId, committed, truthMaintenance: maintained.value };
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

/** Stores the write, its candidates (already valid), its finished validation and its queued commit together. */
async function storeValidated(
  db: Db,
  stages: FactWriteStages,
  input: WriteFactsInput,
  text: string,
  items: { item: DirectItem; payload: Record<string, unknown> }[],
) {
  const scope = normaliseScope(input.scope);
  return transaction(db, async (tx) => {
    // Before anything else, as an erasure of the scope takes it (core/scope-lock.ts).
    await holdScopeShared(tx, input.contextId, scope);
    const scopeSetId = await scopeSetIdOf(tx, input.contextId, scope);
    const write = await tx.factWrite.create({
      data: { contextId: input.contextId, payload: input.diff as Prisma.InputJsonValue, text, scopeSetId, traceId: input.traceId },
    });
    const ref = { contextId: input.contextId, subjectType: "fact_write" as const, subjectId: write.id, traceId: input.traceId };
    const { validateItemId, commitItemId } = await stages.open(tx, ref);
    const candidates: KnowledgeCandidate[] = [];
    for (const [ordinal, { item, payload }] of items.entries()) {
      candidates.push(
        await tx.knowledgeCandidate.create({
          data: {
            contextId: ref.contextId,
            subjectType: ref.subjectType,
            subjectId: ref.subjectId,
            workItemId: validateItemId,
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
    return { ref, candidates, source, commitItemId };
  });
}
