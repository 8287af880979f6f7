// Operators list failed work and retry it; the input was kept, so a retry starts from it.
import { Router } from "express";
import { z } from "zod";
import { enqueueWorkItem, isQueueName, jobIdFor, type QueueSet } from "@recall/queues";
import type { WorkItem } from "@recall/db";
import type { ApiDeps } from "../deps";
import { AppError, notFound } from "../errors";
import { contextIdOf, parseParams } from "../validate";

const ListQuery = z.object({
  status: z.enum(["queued", "running", "succeeded", "failed", "dead"]).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
const ItemParams = z.object({ contextId: z.string(), workItemId: z.string().uuid("must be a work item id") });

export function workItemRoutes(deps: ApiDeps): Router {
  const router = Router({ mergeParams: true });
  router.get("/work-items", async (req, res) => {
    const query = ListQuery.safeParse(req.query);
    if (!query.success)
      throw new AppError(400, "invalid_request", query.error.issues.map((i) => `query.${i.path.join(".")}: ${i.message}`).join("; "));
    const items = await deps.db.workItem.findMany({
      where: { contextId: contextIdOf(req), status: query.data.status },
      orderBy: { createdAt: "desc" },
      take: query.data.limit,
    });
    res.json({ work_items: items.map(view) });
  });
  router.post("/work-items/:workItemId/retry", async (req, res) => {
    const { contextId, workItemId } = parseParams(ItemParams, req.params);
    const item = await deps.db.workItem.findFirst({ where: { id: workItemId, contextId } });
    if (!item) throw notFound("work item");
    if (item.status !== "dead" && item.status !== "failed")
      throw new AppError(409, "not_retryable", `work item is ${item.status}; only failed or dead work can be retried`);
    const updated = await deps.db.workItem.update({
      where: { id: item.id },
      data: { status: "queued", errorClass: null, errorMessage: null, finishedAt: null },
    });
    await requeue(deps.queues, updated);
    res.status(202).json(view(updated));
  });
  return router;
}

/** Retries the failed BullMQ job when it is still kept, else adds it again under the same job id. */
async function requeue(queues: QueueSet, item: WorkItem): Promise<void> {
  if (!isQueueName(item.queue)) throw new AppError(500, "internal", `unknown queue ${item.queue}`);
  const job = await queues[item.queue].getJob(jobIdFor(item.id));
  if (job && (await job.isFailed())) return job.retry("failed", { resetAttemptsMade: true });
  if (job) await job.remove().catch(() => undefined);
  await enqueueWorkItem(queues, item);
}

function view(item: WorkItem) {
  return {
    work_item_id: item.id,
    queue: item.queue,
    subject_type: item.subjectType,
    subject_id: item.subjectId,
    status: item.status,
    attempts: item.attempts,
    error: item.errorClass ? { class: item.errorClass, message: item.errorMessage } : null,
    tokens_used: item.tokensUsed,
    trace_id: item.traceId,
    created_at: item.createdAt,
    started_at: item.startedAt,
    finished_at: item.finishedAt,
  };
}
