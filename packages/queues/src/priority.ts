// Interactive work first. A caller waiting for its turn's answer should not queue behind a history import or
// a document: every job of background work (documents, windows, turns posted with `wait: false` or in a batch,
// and every later stage of those) carries a BullMQ priority, and a job without one is taken before any job that
// has one (BullMQ keeps prioritized jobs in their own set and serves the wait list first). Within each class the
// order stays first in, first out. Whether an item is background travels on its work item's payload from stage
// to stage (`background: true`), so a retry or the sweeper re-enqueues it the same way.
import type { Prisma } from "@recall/db";
import { extractionMode } from "./extraction-mode";

/** BullMQ priority of background jobs (1 is the highest a prioritized job can have; interactive ones have none). */
export const BACKGROUND_PRIORITY = 16;

export interface PriorityItem {
  subjectType: string;
  payload?: Prisma.JsonValue;
}

export function isBackground(item: PriorityItem): boolean {
  if (item.subjectType === "document" || item.subjectType === "window") return true;
  const payload = item.payload ?? null;
  return (payload as Record<string, unknown> | null)?.["background"] === true || extractionMode({ payload }) === "windowed";
}

/** The job option for the item: a priority for background work, none for interactive work. */
export function jobPriority(item: PriorityItem): { priority?: number } {
  return isBackground(item) ? { priority: BACKGROUND_PRIORITY } : {};
}
