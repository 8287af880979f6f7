// Accepted work is stored before it is queued, so a Redis that does not answer never
// loses it: the work item stays `queued` and the workers' sweeper enqueues it later.
import type { WorkItem } from "@recall/db";
import { enqueueWorkItem } from "@recall/queues";
import type { ServiceDeps } from "./service-deps";

/** Enqueues; answers false when Redis did not take it (the sweeper will). */
export async function enqueueOrLeaveForSweeper(deps: Omit<ServiceDeps, "db">, item: WorkItem): Promise<boolean> {
  try {
    await enqueueWorkItem(deps.queues, item);
    return true;
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, workItemId: item.id }, "enqueue failed; the sweeper will retry");
    return false;
  }
}
