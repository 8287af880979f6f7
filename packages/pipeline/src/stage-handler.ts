// What a stage is to the worker factory: the context it runs in, the result it answers, the handler that reads its
// input and processes it, and the options a worker for its queue is built with.
import type { Db, Tx, WorkItem } from "@recall/db";
import type { Logger } from "@recall/telemetry";
import type { RedisConnection } from "./connection";
import type { Lane } from "./priority";
import type { QueueSet } from "./producer";
import type { QueueName, StagePayload } from "./registry";
import type { ClaimedWork, GroupTurns, StageOutput } from "./work-state";

export interface StageContext<I = undefined> {
  /** The item as claimed (running, `attempts` counting this attempt). */
  item: WorkItem;
  /** What the claim returned with it: the context's config, the subject's row, its extraction plan. */
  claim: ClaimedWork;
  /** What the stage's `load` read in the claim's transaction. */
  input: I;
  payload: StagePayload;
  attempt: number;
  /** Whether BullMQ gives up after this attempt: its own count, which an operator's retry restarts (`attempt` does not). */
  lastTry: boolean;
  signal: AbortSignal;
  logger: Logger;
}

/**
 * What a stage's success records: its writes, its output and tokens, and what its successor is to do. `W` is what the
 * handler's `prepareWrites` answers, handed to `write` when the item is written with a group's turns.
 */
export interface StageSuccess<W = unknown> {
  tokensUsed?: number;
  /** false stops the chain here (the stage found nothing for the next one to do). */
  next?: boolean;
  /**
   * The stage's writes: committed in the transaction that records its success, and only for the item's first success.
   * `prepared`: what the handler's `prepareWrites` answered for the group this item is written with, when it is.
   */
  write?(tx: Tx, prepared?: W): Promise<void>;
  /** What the stage keeps on its item's payload. */
  output?: StageOutput;
  /** The next stage has nothing to do: its item is created finished with this result, and no job runs for it. */
  nextDone?: StageOutput;
  /**
   * A group's job (a window's, a batch's): what its stage did for each of the group's turns, whose successes are
   * recorded with the group's own, in its transaction (work-state/group-finish.ts); the turns that fail leave the group
   * and are queued to run alone once it commits.
   */
  group?: GroupTurns;
  /** Runs once the success is committed, when it was the item's first. */
  after?(): Promise<void>;
}

/**
 * What a stage answered, by its status:
 * `succeeded`: recorded with what it carries, and the next stage chained.
 * `awaiting_model`: recorded and chained as a success (the rules' sure part goes on to commit), the item marked as
 * waiting for a model for the rest; never a failure.
 * `waiting`: the processor handed its item on (a turn to its extraction window) and recorded that itself, in the same
 * transaction; the factory then records nothing and chains nothing.
 * `skipped`: the factory found nothing to run (the item done already, its subject erased, a late duplicate's failure).
 */
export type StageResult<W = unknown> =
  | ({ status: "succeeded" } & StageSuccess<W>)
  | ({ status: "awaiting_model" } & Pick<StageSuccess<W>, "tokensUsed" | "output" | "write">)
  | { status: "waiting" }
  | { status: "skipped" };

/** What a result records as a success: nothing for one that carries nothing. */
export function stageSuccess<W>(result: StageResult<W>): StageSuccess<W> {
  return result.status === "succeeded" || result.status === "awaiting_model" ? result : {};
}

export type StageProcessor = (ctx: StageContext) => Promise<StageResult>;

/**
 * A stage that reads its input (`I`: candidates, known entities) in the claim's transaction before it runs; `W` is what
 * its `prepareWrites` answers for a group's turns written together, which each turn's `write` and `completeWrites` take.
 */
export interface StageHandler<I, W = unknown> {
  load?(tx: Tx, claimed: ClaimedWork): Promise<I>;
  /** `load` for the turns of a group (a window's, a batch's) at once, in the same order; `load` per turn without it. */
  loadMany?(tx: Tx, claimed: ClaimedWork[]): Promise<I[]>;
  /**
   * Before a group's turns are written together: what their writes share (a commit's locks and checks for all of them
   * at once, and the rows they buffer), handed to each write. Rolled back with them when one fails, and not used when
   * each is written alone. `inputs` are what `loadMany` read for them, in the same order.
   */
  prepareWrites?(tx: Tx, claimed: ClaimedWork[], inputs: I[]): Promise<W>;
  /** After every turn of a group written together wrote into what `prepareWrites` answered: its rows, in a few statements. */
  completeWrites?(tx: Tx, prepared: W): Promise<void>;
  process(ctx: StageContext<I>): Promise<StageResult<W>>;
  /** The item failed for good (dead): what it held must not be lost with it (a window's turns run alone). */
  onDead?(item: WorkItem, message: string): Promise<void>;
}

/** A stage that always reads its input: a group's job (a window's, a batch's) reads each of its turns' through it. */
export type LoadingStage<I, W = unknown> = StageHandler<I, W> & Required<Pick<StageHandler<I, W>, "load">>;

export interface StageWorkerOptions {
  queue: QueueName;
  /** Which of the stage's two queues this worker takes jobs from (priority.ts); default interactive. */
  lane?: Lane;
  process: StageProcessor | StageHandler<unknown>;
  db: Db;
  queues: QueueSet;
  connection: RedisConnection;
  prefix: string;
  logger: Logger;
  concurrency?: number;
  wallBudgetMs: number;
  /** BullMQ's lock: renewed every half of it; a job whose lock runs out is stalled and runs again elsewhere. */
  lockDurationMs?: number;
  /** Stored on each job it takes (`processedBy`), so the dashboard and tests see which process runs it. Default: `workerName()`. */
  name?: string;
  /** Awaited between a stage's work and its outcome, and between the outcome and the next stage's enqueue (fault tests). */
  faultPoint?: () => Promise<void>;
  /**
   * The later stages this process runs, by queue: an interactive turn's next stage runs in this job once this one
   * succeeded (chained, docs/guarantees.md), each with its own claim, attempt and finish. Absent: every next stage is queued.
   */
  chain?: Partial<Record<QueueName, StageProcessor | StageHandler<unknown>>>;
}

/** BullMQ's lock when the options name none. */
export const DEFAULT_LOCK_MS = 30_000;
