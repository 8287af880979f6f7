// extract_assertions for a history import (subject type `batch`): one job reads all of a batch's turns. Its claim
// takes every turn still waiting for it in one statement (each turn keeps its own item and attempt) and the known
// memory once; the rules read the turns in order in one CPU-pool task (a few for a very large batch), each turn seeing
// the entities the ones before it found; then, in the transaction that records the batch's success, each turn is
// finished its own way: the rules finished it (its candidates staged, its own validation queued), it joins a window
// of its session (all the batch's windows formed in one pass under the session's lock), or it leaves the batch to run
// alone (a name two known entities fit goes to the strong model; a turn the rules failed on retries alone). A batch
// job that fails is retried whole, claiming again the turns its interrupted attempt held; one that gives up for good
// lets every turn still in it run alone.
import { isEmptyDiff, turnSourceText, type ExtractResult, type UnitOutcome } from "@recall/contracts";
import type { Tx, WorkItem } from "@recall/db";
import type { BatchReading, RuleBatch } from "@recall/extraction";
import {
  claimGroupTurns,
  enqueueOrLeaveForSweeper,
  ensureWorkItem,
  finishManyInTransaction,
  leaveGroup,
  nextInGroup,
  releaseGroupTurns,
  requeueWorkItem,
  resetToQueued,
  type GroupRef,
  type StageContext,
  type StageHandler,
  type WindowTurnClaim,
} from "@recall/pipeline";
import { currentTraceId, extractionInputs } from "@recall/telemetry";
import type { WorkerDeps } from "../deps";
import { loadKnownMemory, type KnownMemory } from "../services/known-memory";
import { resolvePlan, writePlans, type ResolvedPlan } from "../services/plan";
import { turnSubject } from "../services/subject-loader";
import { windowModelUsable } from "./model-availability";
import { placeInWindows, releaseWindows, windowLimits, type WindowRelease } from "./window-assembler";
import { candidateRows } from "./window-handoff";

/** One CPU task reads turns up to this many characters (at least one turn): a large batch's task stays within its time limit. */
export const MAX_TASK_CHARS = 256 * 1024;

export interface BatchInput {
  turns: WindowTurnClaim[];
  known: KnownMemory;
}

type Placement =
  | {
      kind: "finished";
      turn: WindowTurnClaim;
      plan: ResolvedPlan;
      reading: Extract<BatchReading, { attempt: unknown }>;
      /** The rules read it only in part and no model is configured: their sure part is committed, the rest awaits one. */
      awaitingModel?: boolean;
    }
  | { kind: "windowed"; turn: WindowTurnClaim; plan: ResolvedPlan }
  | { kind: "alone"; turn: WindowTurnClaim; why: string; failed: boolean };

export function batchExtract(deps: WorkerDeps): StageHandler<BatchInput> {
  return {
    async load(tx, claimed) {
      const turns = await claimGroupTurns(tx, "extract_assertions", batchOf(claimed.item), currentTraceId() ?? null);
      const texts = turns.map((t) => turnSourceText(t.turn));
      return { turns, known: turns.length > 0 ? await loadKnownMemory(tx, claimed.item.contextId, texts) : emptyKnown() };
    },
    async process(ctx) {
      const { turns } = ctx.input;
      if (turns.length === 0) return { status: "succeeded", next: false };
      const started = performance.now();
      const readings = await readBatch(deps, ctx);
      const placements = turns.map((turn, i) => place(deps, ctx, turn, readings[i]!));
      const count = (kind: Placement["kind"]) => placements.filter((p) => p.kind === kind).length;
      const batch = { turns: turns.length, finished: count("finished"), windowed: count("windowed"), alone: count("alone") };
      ctx.logger.info(batch, "batch read");
      const wallMs = Math.round((performance.now() - started) / turns.length);
      const enqueue: WorkItem[] = [];
      const reruns: WorkItem[] = [];
      let windows: WindowRelease | undefined;
      return {
        status: "succeeded",
        next: false,
        output: { value: { batch } satisfies Partial<ExtractResult> },
        write: async (tx) => {
          // Run again if its transaction is: only the last run's items are queued.
          [enqueue.length, reruns.length] = [0, 0];
          await writePlans(
            tx,
            placements.flatMap((p) => (p.kind === "alone" ? [] : [{ resolved: p.plan, stored: p.turn.plan }])),
          );
          const { validation, rerun } = await finishTurns(tx, ctx.item, placements, wallMs);
          if (validation) enqueue.push(validation);
          reruns.push(...rerun);
          const joining = placements.filter((p) => p.kind === "windowed");
          windows = await placeInWindows(
            tx,
            windowLimits(deps.config),
            joining.map(({ turn: { turn, item } }) => ({ turn, workItemId: item.id })),
          );
          for (const p of placements) {
            if (p.kind !== "alone") continue;
            const left = await leaveGroup(tx, "batch", p.turn, { errorClass: p.failed ? "internal" : null, message: p.why });
            if (left) enqueue.push(left);
          }
        },
        after: async () => {
          if (windows) await releaseWindows(deps, windowLimits(deps.config), windows);
          for (const item of enqueue) await enqueueOrLeaveForSweeper(deps, item);
          // Their old jobs must give way to new ones; a requeue that fails is the sweeper's.
          for (const item of reruns)
            await requeueWorkItem(deps.queues, item).catch((err: Error) =>
              ctx.logger.warn({ err: err.message }, "requeue failed; the sweeper will queue it"),
            );
        },
      };
    },
    async onDead(item, message) {
      const turns = await releaseGroupTurns(deps.db, "extract_assertions", batchOf(item), `batch: ${message}`);
      for (const turn of turns) await enqueueOrLeaveForSweeper(deps, turn);
    },
  };
}

const batchOf = (item: Pick<WorkItem, "subjectId">): GroupRef => ({ kind: "batch", id: item.subjectId });

function emptyKnown(): KnownMemory {
  return { knownEntities: [], knownAttributes: [], activeInstructions: [] };
}

/** The rules' reading of every turn, in session order, in as few CPU tasks as MAX_TASK_CHARS allows. */
async function readBatch(deps: WorkerDeps, ctx: StageContext<BatchInput>): Promise<BatchReading[]> {
  const { turns } = ctx.input;
  let known = ctx.input.known;
  const readings: BatchReading[] = [];
  for (const slice of slices(turns)) {
    const inputs: RuleBatch["inputs"] = slice.map(({ turn }) => ({
      text: turnSourceText(turn),
      kind: "turn",
      role: turn.role,
      speaker: turn.speaker ?? undefined,
      referenceTime: turn.occurredAt ?? turn.createdAt,
    }));
    try {
      const read = await deps.cpu.run(
        "rules_batch",
        { inputs, known },
        { threshold: deps.config.RECALL_HEURISTIC_CONFIDENCE },
        { lane: "background", signal: ctx.signal },
      );
      readings.push(...read.readings);
      known = { ...known, knownEntities: read.knownEntities };
    } catch (err) {
      // The task failed as a whole (its time or memory limit): its turns run alone, each within its own limits.
      if (ctx.signal.aborted) throw err;
      readings.push(...slice.map(() => ({ error: (err as Error).message })));
    }
  }
  return readings;
}

function* slices(turns: WindowTurnClaim[]): Generator<WindowTurnClaim[]> {
  let slice: WindowTurnClaim[] = [];
  let chars = 0;
  for (const turn of turns) {
    if (slice.length > 0 && chars + turnSourceText(turn.turn).length > MAX_TASK_CHARS) {
      yield slice;
      [slice, chars] = [[], 0];
    }
    slice.push(turn);
    chars += turnSourceText(turn.turn).length;
  }
  if (slice.length > 0) yield slice;
}

/** Where a turn goes after the rules read it; the same decisions as a windowed turn's own job (windowed-turn.ts). */
function place(deps: WorkerDeps, ctx: StageContext<BatchInput>, turn: WindowTurnClaim, reading: BatchReading): Placement {
  if ("error" in reading) return { kind: "alone", turn, why: `batch: the rules failed on this turn (${reading.error})`, failed: true };
  const plan = resolvePlan(deps, turnSubject(turn.turn, ctx.claim.contextConfig));
  const { attempt, ambiguous } = reading;
  if (attempt.finished && !(ambiguous && !isEmptyDiff(attempt.diff))) return { kind: "finished", turn, plan, reading };
  if (ambiguous) return { kind: "alone", turn, why: `batch: "${ambiguous}" fits two known entities; read alone`, failed: false };
  if (!windowModelUsable(deps)) return { kind: "finished", turn, plan, reading, awaitingModel: true };
  return { kind: "windowed", turn, plan };
}

/**
 * The turns the rules finished: each item's success with its candidates; their validations wait for one job of the
 * batch (group-stage.ts), as do the later stages after it. Answers the items to queue: the batch's validation, and a
 * turn's validation found finished before (an operator re-extracted it), which runs again alone.
 */
async function finishTurns(
  tx: Tx,
  batch: WorkItem,
  placements: Placement[],
  wallMs: number,
): Promise<{ validation?: WorkItem; rerun: WorkItem[] }> {
  const rerun: WorkItem[] = [];
  const staged: Parameters<typeof candidateRows>[] = [];
  const done = placements.filter((p): p is Extract<Placement, { kind: "finished" }> => p.kind === "finished");
  // Every finished turn's success in one statement, each as its own finish would record it.
  const finished = await finishManyInTransaction(
    tx,
    done.map((p) => {
      const { item, attemptId } = p.turn;
      const { attempt } = p.reading;
      const awaiting = p.awaitingModel ? { awaiting_model: true } : {};
      const reason = p.awaitingModel ? `${attempt.reason}; no model configured: the rules' sure part is committed` : attempt.reason;
      const outcome: UnitOutcome = { node_id: null, stage: "heuristic", model: null, reason, tokens_used: 0, ...awaiting };
      const result: ExtractResult = { outcomes: [outcome] };
      return {
        workItemId: item.id,
        attemptId,
        wallMs,
        result: { value: result, replace: true },
        next: nextInGroup("extract_assertions", item, batchOf(batch)),
        status: p.awaitingModel ? ("awaiting_model" as const) : ("succeeded" as const),
      };
    }),
  );
  for (const p of done) {
    const { item, turn } = p.turn;
    const answer = finished.get(item.id);
    if (!answer?.first) continue;
    staged.push([item, turn, p.reading.attempt.diff, { stage: "heuristic", model: null }]);
    if (answer.next?.rerun) {
      const alone = await resetToQueued(tx, answer.next.item.id, "waiting");
      if (alone) rerun.push(alone);
    }
  }
  if (staged.length === 0) return { rerun };
  const rows = staged.flatMap((args) => candidateRows(...args));
  await tx.knowledgeCandidate.deleteMany({ where: { workItemId: { in: staged.map(([item]) => item.id) } } });
  if (rows.length > 0) await tx.knowledgeCandidate.createMany({ data: rows });
  for (let i = 0; i < staged.length; i++) extractionInputs.inc({ stage: "heuristic" });
  const { contextId, subjectId, traceId } = batch;
  const validation = await ensureWorkItem(tx, {
    contextId,
    queue: "validate_artifacts",
    subjectType: "batch",
    subjectId,
    traceId,
    background: true,
  });
  return { validation, rerun };
}
