// The queue registry: every queue declared once. Producers and workers both take
// names, payload types, attempts and backoff from here.
import { JOB_CATALOG, StagePayload, type QueueName } from "@recall/contracts";
import { retryAfterOf } from "./errors";

export { StagePayload, SubjectType, type QueueName } from "@recall/contracts";

export interface QueueDefinition {
  name: QueueName;
  payload: typeof StagePayload;
  /** The schema of what the stage leaves on its work item. */
  result: (typeof JOB_CATALOG)[QueueName]["result"];
  attempts: number;
  /** Base delay of the exponential backoff; each retry waits base * 2^(n-1), ±25% jitter. */
  backoffMs: number;
  /** The stage that follows this one, if any. */
  next?: string;
}

const job = <Q extends QueueName>(name: Q) => ({ name, payload: JOB_CATALOG[name].input, result: JOB_CATALOG[name].result });

export const QUEUES = {
  extract_assertions: { ...job("extract_assertions"), attempts: 5, backoffMs: 2_000, next: "validate_artifacts" },
  validate_artifacts: { ...job("validate_artifacts"), attempts: 3, backoffMs: 1_000, next: "commit_artifacts" },
  // Its success creates truth maintenance's item, with the outbox row the commit writes (work-state/finish-item.ts).
  commit_artifacts: { ...job("commit_artifacts"), attempts: 5, backoffMs: 1_000, next: "truth_maintenance" },
  truth_maintenance: { ...job("truth_maintenance"), attempts: 5, backoffMs: 1_000 },
  // No `next`: a window hands each of its turns on to that turn's own validate_artifacts.
  extract_window: { ...job("extract_window"), attempts: 5, backoffMs: 2_000 },
} as const satisfies Record<QueueName, QueueDefinition>;
export const QUEUE_NAMES = Object.keys(QUEUES) as QueueName[];
export const PIPELINE: readonly QueueName[] = ["extract_assertions", "validate_artifacts", "commit_artifacts", "truth_maintenance"];

export function isQueueName(value: string): value is QueueName {
  return value in QUEUES;
}

/** BullMQ job ids must not contain ':' nor be plain integers; a work item id (uuid) is neither. */
export function jobIdFor(workItemId: string): string {
  return `wi-${workItemId}`;
}

/** Delay before retry n (1-based): exponential with ±25% jitter, or what the provider asked for. */
export function backoffDelay(queue: QueueName, attemptsMade: number, err?: Error): number {
  const retryAfterMs = retryAfterOf(err);
  if (retryAfterMs !== undefined) return retryAfterMs;
  const base = QUEUES[queue].backoffMs * 2 ** Math.max(0, attemptsMade - 1);
  return Math.round(base * (0.75 + Math.random() * 0.5));
}
