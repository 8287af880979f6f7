// The registry of input kinds: every subject type, with its traits (subject-kind.ts).
import { batchKind } from "./batch";
import { documentKind } from "./document";
import { factWriteKind } from "./fact-write";
import { reviewKind } from "./review";
import type { SubjectKind } from "./subject-kind";
import { turnKind } from "./turn";
import { windowKind } from "./window";
import type { SubjectType } from "../queues";

export type { GroupKind, SubjectKind } from "./subject-kind";

export const SUBJECT_KINDS: Readonly<Record<SubjectType, SubjectKind>> = {
  turn: turnKind,
  document: documentKind,
  fact_write: factWriteKind,
  review: reviewKind,
  window: windowKind,
  batch: batchKind,
};

/** The kind of a subject type as stored (a string column); throws on one no kind names. */
export function kindOf(subjectType: string): SubjectKind {
  const kind = (SUBJECT_KINDS as Record<string, SubjectKind | undefined>)[subjectType];
  if (!kind) throw new Error(`unknown subject type ${JSON.stringify(subjectType)}`);
  return kind;
}
