// Interactive work keeps its own slots. A caller waiting for its turn's answer should not queue behind a
// history import or a document: every stage has two BullMQ queues, its interactive lane (named after the
// stage) and its background lane (`<stage>_background`), and each worker process runs each lane with its own
// concurrency (WORKER_CONCURRENCY, WORKER_BACKGROUND_CONCURRENCY), so background work can never hold the
// slots interactive work runs in. Background work is documents, windows, turns posted with `wait: false` or
// in a batch, and every later stage of those; whether an item is background travels on its work item's
// payload from stage to stage (`background: true`), so a retry or the sweeper re-enqueues it in its lane.
// Review commits (approvals, one by one or in bulk, and those an import brings) are background too: nobody waits
// on them, and a bulk approval must not hold the slots another tenant's turns run in. Within the background lane
// contexts take turns (fair-share.ts); within a context, and in the interactive lane, first in, first out.
import { kindOf } from "@recall/contracts";
import type { Prisma } from "@recall/db";
import { extractionMode } from "./extraction-mode";
import type { QueueName } from "./registry";

export type Lane = "interactive" | "background";
export const LANES: readonly Lane[] = ["interactive", "background"];

export interface PriorityItem {
  subjectType: string;
  payload?: Prisma.JsonValue;
}

export function isBackground(item: PriorityItem): boolean {
  if (kindOf(item.subjectType).alwaysBackground) return true;
  const payload = item.payload ?? null;
  return (payload as Record<string, unknown> | null)?.["background"] === true || extractionMode({ payload }) === "windowed";
}

export function laneOf(item: PriorityItem): Lane {
  return isBackground(item) ? "background" : "interactive";
}

/** The BullMQ queue name of a stage's lane. */
export function laneQueueName(queue: QueueName, lane: Lane): string {
  return lane === "interactive" ? queue : `${queue}_background`;
}
