// How a turn's extraction runs. Interactive turns (the caller waits) go through the model one
// by one; turns posted with wait: false or in a batch are "windowed": the heuristics finish
// what they can per turn, and the rest wait for one model call over a window of their session.
// The mode travels on the turn's extract_assertions work item, so a retry keeps (or drops) it.
// A batch's turns start `waiting` for their batch's one extract_assertions job (subject `batch`), which
// reads them all with the rules in one pass (apps/worker windowing/batch-extract.ts).
import type { WorkItem } from "@recall/db";
import type { NewWorkItem } from "./work-state/create-items";

export type ExtractionMode = "interactive" | "windowed";

export function extractionMode(item: Pick<WorkItem, "payload">): ExtractionMode {
  const payload = item.payload as Record<string, unknown> | null;
  return payload?.["mode"] === "windowed" ? "windowed" : "interactive";
}

export interface NewTurnExtraction {
  contextId: string;
  turnId: string;
  traceId: string;
  mode: ExtractionMode;
  /** The turn arrived in this batch: its batch's job reads it, not a job of its own. */
  batchId?: string;
}

/** A turn's first work item, for createWorkItems (one turn, or a batch of them, in the ingest transaction). */
export function turnExtraction(t: NewTurnExtraction): NewWorkItem {
  return {
    contextId: t.contextId,
    queue: "extract_assertions",
    subjectType: "turn",
    subjectId: t.turnId,
    traceId: t.traceId,
    payload: t.mode === "windowed" ? { mode: "windowed", ...(t.batchId ? { batch_id: t.batchId } : {}) } : {},
    waiting: t.batchId !== undefined,
  };
}

/** The batch's own extract_assertions item, whose job reads the batch's turns; background work like its turns. */
export function batchExtraction(b: { contextId: string; batchId: string; traceId: string }): NewWorkItem {
  return {
    contextId: b.contextId,
    queue: "extract_assertions",
    subjectType: "batch",
    subjectId: b.batchId,
    traceId: b.traceId,
    payload: { mode: "windowed" },
  };
}
