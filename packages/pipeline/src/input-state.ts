// An input's state (a turn, a document, a direct write), computed from its work items in this one
// place: turn answers, batch and document status read `inputState`, and the webhook trigger's
// `*.committed` condition is MAINTAINED_ITEM_SQL (input-state.test.ts drives every transition and checks
// the trigger fires exactly when `inputState` turns committed). An input is committed once truth
// maintenance has applied it (a new version of a document: and its previous version has retired); what truth
// maintenance does after that (embedding the commit) is reported apart, as `embeddingState`, and never makes it
// read failed.
import { truthMaintained } from "@recall/contracts";

export type InputState = "queued" | "processing" | "committed" | "awaiting_model" | "failed" | "cancelled";

/** The states an input rests in until someone acts (a retry, an extract-again, a new version). */
export const SETTLED_STATES: readonly InputState[] = ["committed", "awaiting_model", "failed", "cancelled"];

/** The slice of a work item the state is read from. */
export interface StateItem {
  queue: string;
  status: string;
  payload: unknown;
}

/**
 * A work item (alias `w`) that makes its input committed: truth maintenance applied it. The webhook
 * trigger (recall_webhook_work_item) and batch.done count with exactly this condition.
 */
export const MAINTAINED_ITEM_SQL = "w.queue = 'truth_maintenance' AND w.payload ? 'truth_maintained_at'";

export function inputState(items: readonly StateItem[]): InputState {
  const again = extractingAgain(items);
  if (items.some(truthMaintained) && !again) return committedState(items);
  if (items.some((i) => i.status === "dead")) return "failed";
  // An operator stopped a stage: the rest will not run unless it is retried.
  if (items.some((i) => i.status === "cancelled")) return "cancelled";
  if (again) return "processing";
  // Truth maintenance written before its checkpoint existed: its success is the commit.
  if (items.some((i) => i.queue === "truth_maintenance" && i.status === "succeeded")) return committedState(items);
  return items.some((i) => i.status !== "queued") ? "processing" : "queued";
}

export type EmbeddingState = "pending" | "done" | "failed";

/**
 * What truth maintenance does after the commit (embedding it, when a model is configured): `done` once its item
 * succeeded, `failed` when it has no retry left.
 */
export function embeddingState(items: readonly StateItem[]): EmbeddingState {
  const maintenance = items.find((i) => i.queue === "truth_maintenance");
  if (maintenance?.status === "succeeded") return "done";
  return maintenance?.status === "dead" ? "failed" : "pending";
}

/**
 * A stage before truth maintenance runs again after an earlier run was maintained (an extract-again once a model was
 * set): the input is not settled until the new run reaches memory.
 */
function extractingAgain(items: readonly StateItem[]): boolean {
  const unfinished = ["queued", "running", "waiting", "failed"];
  const again = items.some((i) => i.queue !== "truth_maintenance" && unfinished.includes(i.status));
  return again && items.some((i) => i.queue === "truth_maintenance" && i.status === "succeeded");
}

/** Committed; `awaiting_model` when what was committed is the rules' part and the rest waits for a model. */
function committedState(items: readonly StateItem[]): "committed" | "awaiting_model" {
  return items.some((i) => i.status === "awaiting_model") ? "awaiting_model" : "committed";
}
