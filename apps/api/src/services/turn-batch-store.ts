// Stores a batch of turns (history import) in one transaction: consecutive sequence numbers in
// the order given, one windowed extract_assertions work item each, and the batch row whose
// sequence range its status reads. Turns without occurred_at get received times 1 ms apart, so
// valid time keeps their order for supersession even when they commit out of order.
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { isUniqueConstraintError, transaction, type Db, type Prisma, type WorkItem } from "@recall/db";
import { normaliseScope } from "@recall/memory";
import { createWorkItems, turnExtraction } from "@recall/queues";
import { currentTraceId } from "@recall/telemetry";
import { AppError } from "../http/errors";
import type { TurnBatchBody } from "../routes/sessions.schemas";
import { newTraceId } from "../http/trace";

type BatchTurn = z.infer<typeof TurnBatchBody>["turns"][number];

export interface StoredBatch {
  batchId: string;
  turnIds: string[];
  items: WorkItem[];
  traceId: string;
}

export async function storeTurnBatch(db: Db, contextId: string, sessionId: string, turns: BatchTurn[]): Promise<StoredBatch> {
  const traceId = currentTraceId() ?? newTraceId();
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return await transaction(db, async (tx) => {
        const last = await tx.turn.findFirst({ where: { sessionId }, orderBy: { seq: "desc" }, select: { seq: true } });
        const firstSeq = (last?.seq ?? 0) + 1;
        const rows = turnRows(contextId, sessionId, firstSeq, traceId, turns);
        await tx.turn.createMany({ data: rows });
        const created = await createWorkItems(
          tx,
          rows.map((r) => turnExtraction({ contextId, turnId: r.id!, traceId, mode: "windowed" })),
        );
        const batch = await tx.turnBatch.create({ data: { contextId, sessionId, firstSeq, lastSeq: firstSeq + turns.length - 1 } });
        const byTurn = new Map(created.map((i) => [i.subjectId, i]));
        return { batchId: batch.id, turnIds: rows.map((r) => r.id!), items: rows.map((r) => byTurn.get(r.id!)!), traceId };
      });
    } catch (err) {
      if (!isUniqueConstraintError(err)) throw err;
    }
  }
  throw new AppError(409, "conflict", "too many concurrent turns in this session; retry");
}

function turnRows(contextId: string, sessionId: string, firstSeq: number, traceId: string, turns: BatchTurn[]) {
  const base = Date.now();
  return turns.map((t, i): Prisma.TurnCreateManyInput => ({
    id: randomUUID(),
    contextId,
    sessionId,
    seq: firstSeq + i,
    role: t.role,
    speaker: t.name,
    occurredAt: t.occurred_at ? new Date(t.occurred_at) : undefined,
    content: t.content,
    scope: normaliseScope(t.scope),
    traceId,
    createdAt: new Date(base + i),
  }));
}
