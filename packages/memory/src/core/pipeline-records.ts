// What memory needs of the pipeline's own records (its work items and their attempts, the announcement a commit
// leaves for truth maintenance, the events it raised), asked through these ports and never by reading the pipeline's
// tables. The ports are declared in @recall/contracts (ports.ts); this binds them to the database's transaction and
// SQL types. packages/pipeline implements them (work-state/pipeline-records.ts) and the apps hand them in. A change to
// the pipeline's schema stays in the pipeline.
import type {
  AnnounceCommit as AnnounceCommitPort,
  PipelineRecords as PipelineRecordsPort,
  TextColumn as TextColumnPort,
} from "@recall/contracts";
import type { Prisma, Tx } from "@recall/db";

/** Announces one commit, or a group's written together, in one statement, in the commit's transaction. */
export type AnnounceCommit = AnnounceCommitPort<Tx>;

export type PipelineRecords = PipelineRecordsPort<Tx, Prisma.Sql>;

/** A column that may hold a copy of an input's text (the pipeline's, and memory's own). */
export type TextColumn = TextColumnPort<Prisma.Sql>;
