// The queue registry: every queue declared once. Producers and workers both take
// names, payload types, attempts and backoff from here.
import { z } from "zod";

/** `window`: consecutive asynchronous turns of a session extracted by one model call (extract_window). */
export const SubjectType = z.enum(["document", "turn", "fact_write", "window"]);
export type SubjectType = z.infer<typeof SubjectType>;

/** Every stage's job carries the same small payload; the work item row holds the rest. */
export const StagePayload = z.object({
  workItemId: z.string().uuid(),
  contextId: z.string().uuid(),
  subjectType: SubjectType,
  subjectId: z.string().uuid(),
  trace: z.record(z.string(), z.string()).default({}),
});
export type StagePayload = z.infer<typeof StagePayload>;

export interface QueueDefinition {
  name: string;
  payload: typeof StagePayload;
  attempts: number;
  /** Base delay of the exponential backoff; each retry waits base * 2^(n-1), ±25% jitter. */
  backoffMs: number;
  /** The stage that follows this one, if any. */
  next?: string;
}

export const QUEUES = {
  extract_assertions: { name: "extract_assertions", payload: StagePayload, attempts: 5, backoffMs: 2_000, next: "validate_artifacts" },
  validate_artifacts: { name: "validate_artifacts", payload: StagePayload, attempts: 3, backoffMs: 1_000, next: "commit_artifacts" },
  commit_artifacts: { name: "commit_artifacts", payload: StagePayload, attempts: 5, backoffMs: 1_000 },
  truth_maintenance: { name: "truth_maintenance", payload: StagePayload, attempts: 5, backoffMs: 1_000 },
  // No `next`: a window hands each of its turns on to that turn's own validate_artifacts.
  extract_window: { name: "extract_window", payload: StagePayload, attempts: 5, backoffMs: 2_000 },
} as const satisfies Record<string, QueueDefinition>;

export type QueueName = keyof typeof QUEUES;
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
  const retryAfterMs = (err as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  if (typeof retryAfterMs === "number" && retryAfterMs > 0) return retryAfterMs;
  const base = QUEUES[queue].backoffMs * 2 ** Math.max(0, attemptsMade - 1);
  return Math.round(base * (0.75 + Math.random() * 0.5));
}
