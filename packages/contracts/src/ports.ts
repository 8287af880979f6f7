// The ports the apps hand memory, declared once: memory calls them (packages/memory/src/core binds the pipeline's to
// the database's types), their adapters say they implement them (the pipeline's records with `satisfies`,
// work-state/pipeline-records.ts; @recall/llm's EmbeddingClient extends Embedder), and the apps hand one to the other. This leaf names no database: each port is generic over the transaction (`Tx`)
// and the SQL fragment (`Sql`) both sides take from @recall/db.
import type { CommittedRefs } from "./stage-results";

/** A commit, as the pipeline announces it to truth maintenance, in the commit's own transaction. */
export interface CommitAnnouncement {
  /** The committing unit (its work item). */
  commitId: string;
  contextId: string;
  traceId: string;
  refs: CommittedRefs;
}

/** Announces one commit, or a group's written together, in one statement. */
export type AnnounceCommit<Tx> = (tx: Tx, ...commits: CommitAnnouncement[]) => Promise<void>;

/** A deleted work item: its queue job (`wi-<id>` in its queue) outlives it unless removed after the commit. */
export interface ErasedWorkItem {
  id: string;
  queue: string;
}

/** What an erasure asks the pipeline to forget, in the erasure's transaction. */
export interface ForgetRequest {
  contextId: string;
  /** The erased inputs, their sessions and their review commits: the pipeline's records of each go. */
  subjects: string[];
  /** Extraction windows left without turns: their work goes too. */
  emptyWindows: string[];
  /** Windows that keep turns: their work stays, without error messages (a provider's error may quote a turn). */
  keptWindows: string[];
  /** What the erasure deleted that the pipeline's events may name (WEBHOOK_ID_KEYS): facts, supersessions, instructions. */
  derived?: { fact: string[]; supersession: string[]; instruction: string[] };
}

export interface Forgotten {
  /** Rows deleted per table, for the erasure's receipt. */
  counts: Record<string, number>;
  workItems: ErasedWorkItem[];
}

/** A column of the pipeline's that may hold a copy of an input's text; `rows` narrows it to one context's rows. */
export interface TextColumn<Sql> {
  table: string;
  column: string;
  json: boolean;
  rows(contextId: string): Sql;
}

/** What memory needs of the pipeline's own records (work items, their attempts, commit announcements, webhook events). */
export interface PipelineRecords<Tx, Sql> {
  /** Of these ids, the ones naming the pipeline's work of another context: a statement answering `id` (text). */
  foreignWork(contextId: string, ids: readonly string[]): Sql;
  /** Locks the work on these inputs (and on the review commits of `reviewSources`) in id order: an erasure's first lock. */
  lockWork(tx: Tx, subjects: readonly string[], reviewSources: readonly string[]): Promise<void>;
  forget(tx: Tx, request: ForgetRequest): Promise<Forgotten>;
  /** Every record of a context (the context's own erasure). */
  forgetContext(tx: Tx, contextId: string): Promise<Record<string, number>>;
  /** Where a name an erased input stated may have been copied to in the pipeline's rows. */
  textColumns: readonly TextColumn<Sql>[];
}

/** What memory needs from an embedding model; @recall/llm's EmbeddingClient is one. Memory never talks to a provider. */
export interface Embedder {
  /** `provider:model`; stored with every vector, so vectors of different models are never compared. */
  readonly modelRef: string;
  /** One vector per text, in order; throws the provider's error when the call fails. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<{ vectors: number[][]; usage: { inputTokens: number } }>;
}
