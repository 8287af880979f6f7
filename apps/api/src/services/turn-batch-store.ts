// Stores a batch of turns (history import) inside the caller's transaction, which holds the
// session (TurnService.addBatch): consecutive sequence numbers in the order given from
// `firstSeq`, one windowed extract_assertions work item each, and the batch row whose sequence
// range its status reads. The turns' items wait for the batch's own item, whose one job reads them all
// (apps/worker windowing/batch-extract.ts). Turns without occurred_at get received times 1 ms apart, so valid time
// keeps their order for supersession even when they commit out of order.
import { kindOf } from "@recall/contracts";
import { randomUUID } from "node:crypto";
import type { Prisma, Tx, WorkItem } from "@recall/db";
import { attachmentColumns, scopeSetIdsOf } from "@recall/memory";
import { batchExtraction, createWorkItems, turnExtraction } from "@recall/pipeline";
import type { BatchTurn } from "./turn-input";

export interface StoredBatch {
  batchId: string;
  turnIds: string[];
  /** The batch's own extract_assertions item: its job reads the turns, whose items wait for it. */
  item: WorkItem;
  traceId: string;
}

export interface BatchPlace {
  contextId: string;
  sessionId: string;
  firstSeq: number;
  traceId: string;
}

export async function storeTurnBatch(tx: Tx, place: BatchPlace, turns: BatchTurn[]): Promise<StoredBatch> {
  const { contextId, sessionId, firstSeq, traceId } = place;
  const scopeSetIds = await scopeSetIdsOf(
    tx,
    contextId,
    turns.map((t) => t.scope),
  );
  const rows = turnRows(place, turns, scopeSetIds);
  await tx.turn.createMany({ data: rows });
  const batch = await tx.turnBatch.create({ data: { contextId, sessionId, firstSeq, lastSeq: firstSeq + turns.length - 1 } });
  const items = await createWorkItems(tx, [
    batchExtraction({ contextId, batchId: batch.id, traceId }),
    ...rows.map((r) => turnExtraction({ contextId, turnId: r.id!, traceId, mode: "windowed", batchId: batch.id })),
  ]);
  const item = items.find((i) => kindOf(i.subjectType).group === "batch")!;
  return { batchId: batch.id, turnIds: rows.map((r) => r.id!), item, traceId };
}

function turnRows(place: BatchPlace, turns: BatchTurn[], scopeSetIds: readonly (bigint | null)[]) {
  const base = Date.now();
  return turns.map((t, i): Prisma.TurnCreateManyInput => ({
    id: randomUUID(),
    contextId: place.contextId,
    sessionId: place.sessionId,
    seq: place.firstSeq + i,
    role: t.role,
    speaker: t.name,
    occurredAt: t.occurred_at ? new Date(t.occurred_at) : undefined,
    content: t.content,
    ...attachmentColumns(t.attachments),
    scopeSetId: scopeSetIds[i] ?? null,
    traceId: place.traceId,
    createdAt: new Date(base + i),
  }));
}
