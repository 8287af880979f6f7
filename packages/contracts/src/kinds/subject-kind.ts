// What the pipeline needs to know of an input kind (a work item's subject type), in one interface: each kind is one
// file beside this one, and code asks a kind's traits (kindOf(item.subjectType).groupable, .group, .parsed, …: the
// fields of SubjectKind below) instead of comparing subject types. A new kind is a new file here and an entry in SUBJECT_KINDS.

export type GroupKind = "window" | "batch";

export interface SubjectKind {
  /** The subject type on work items, plans and candidates. */
  type: "turn" | "document" | "fact_write" | "review" | "window" | "batch";
  /** The input whose text its stages read, when it is one (a turn, a document, a direct write). */
  source?: "turn" | "document" | "fact_write";
  /** Nobody waits on it: its stages always run in the background lane (pipeline/src/priority.ts). */
  alwaysBackground: boolean;
  /** Its extraction may be handed to a window of its session, or run by a batch's job (windowed extraction, groups). */
  groupable: boolean;
  /** It is itself a group of turns, whose job runs its members' stages (the sweeper asks its item about them). */
  group?: GroupKind;
  /** Its text is split into nodes before extraction (a document's parse). */
  parsed: boolean;
  /** A direct write: stored as validated candidates, never extracted. */
  direct: boolean;
  /** It commits candidates approved in review (a review commit), not valid ones of its own; the review rule holds none. */
  commitsApproved: boolean;
  /** Its commit's truth maintenance may be created done when the commit gives it nothing to do (facts, revocations, vectors). */
  maintenanceSkippable: boolean;
  /** Its validation, commit and truth maintenance may run in the job of the stage before (a caller waits on it). */
  chainable: boolean;
  /** What its text units are, which extraction reads and its commit embeds: the turn itself, or the document's nodes. */
  unit?: "turn" | "document_node";
  /** Whose words may give standing instructions: any (a direct write), the user's own (a turn's user role), or none. */
  instructs: "always" | "from the user" | "never";
  /** A new version replaces an earlier one of the same source: its truth maintenance retires the previous version. */
  versioned: boolean;
}

/** A kind from what sets it apart; every trait it does not name is the plainest (no, never, interactive). */
export function defineKind(traits: Pick<SubjectKind, "type"> & Partial<SubjectKind>): SubjectKind {
  return {
    alwaysBackground: false,
    groupable: false,
    parsed: false,
    direct: false,
    commitsApproved: false,
    maintenanceSkippable: false,
    chainable: false,
    instructs: "never",
    versioned: false,
    ...traits,
  };
}
