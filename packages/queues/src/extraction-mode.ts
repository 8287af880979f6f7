// How a turn's extraction runs. Interactive turns (the caller waits) go through the model one
// by one; turns posted with wait: false or in a batch are "windowed": the heuristics finish
// what they can per turn, and the rest wait for one model call over a window of their session.
// The mode travels on the turn's extract_assertions work item, so a retry keeps (or drops) it.
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
}

/** A turn's first work item, for createWorkItems (one turn, or a batch of them, in the ingest transaction). */
export function turnExtraction(t: NewTurnExtraction): NewWorkItem {
  return {
    contextId: t.contextId,
    queue: "extract_assertions",
    subjectType: "turn",
    subjectId: t.turnId,
    traceId: t.traceId,
    payload: t.mode === "windowed" ? { mode: "windowed" } : {},
  };
}
