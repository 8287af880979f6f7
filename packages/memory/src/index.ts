// What other packages use of @recall/memory, and only that: everything else in it is internal.
export { readOriginal, sha256, storeOriginal } from "./core/document-originals";
export { backfillEmbeddings } from "./embeddings/embedding-backfill";
export { rekeyEntities, type RekeyReport } from "./entities/entity-rekey";
export { embedCommitted } from "./embeddings/embedding-writer";
export { DisambiguationAnswer, decisionFrom, disambiguationPrompt } from "./entities/disambiguation-prompt";
export { type DisambiguationCheckpoint, type EntityDisambiguator } from "./entities/entity-disambiguation";
export { type NameSnapshot } from "./entities/entity-store";
export { identityKey, normaliseType } from "./core/identity";
export { ERASURE_LIMITS, type ErasureReceipt, UnknownErasureInputsError, eraseContext, eraseInputs, readErasure } from "./erasure/erasure";
export { type EraseRequest } from "./erasure/erasure-inputs";
export { CONTEXT_LIMITS, type ContextPack, readContext } from "./read/context-reader";
export { readInstructionHistory } from "./read/directive-reader";
export { readEntityHistory } from "./read/history-reader";
export { readProfile } from "./read/profile-reader";
export { readProvenance } from "./read/provenance-reader";
export { type ListPosition } from "./read/read-types";
export { searchMemory } from "./read/search/search-reader";
export { SEARCH_KINDS } from "./read/search/search-types";
export { RANKING_DEFAULTS, type RankingWeights } from "./read/search/search-weights";
export { readState } from "./read/state-reader";
export { listSessionTurns, readSessionTurn } from "./read/turn-reader";
export { ITEMS_BYTES, READ_LIMITS, clipped, countWithin } from "./read/answer-bounds";
export { readDocumentText } from "./read/document-text-reader";
export { describeIndex } from "./read/search/vector-index";
export { type RetrieverStatus, type VectorRetriever, embeddingRetriever, unavailableRetriever } from "./read/search/vector-retriever";
export { readDocumentVersions, retirePreviousVersion } from "./retraction/document-versions";
export { type RetractionReport, retractSource } from "./retraction/retraction";
export { EXPORT_FORMAT, EXPORT_FORMAT_VERSION, type ExportFilters, KINDS as EXPORT_KINDS } from "./portability/export-format";
export { EXPORT_SNAPSHOT_MAX_MS, type ExportCounts, exportContext } from "./portability/export";
export { type ImportReport, ImportLineError, importContext } from "./portability/import";
export { PIPELINE_WORK, REFERENCE_TARGETS as IMPORT_REFERENCE_TARGETS } from "./portability/import-references";
export { normaliseScope, scopeFromQuery } from "./core/scope";
export { holdScopeExclusive, holdScopeShared } from "./core/scope-lock";
export { scopeColumn, scopeOf, scopeSetIdOf, scopeSetIdsOf, scopesOf } from "./core/scope-sets";
export {
  type TruthMaintenanceRun,
  applyTruthMaintenance,
  applyTruthMaintenanceIn,
  applyTruthMaintenanceMany,
} from "./truth/truth-maintenance";
export { DEFAULT_SINGLE_VALUED } from "./core/fact-keys";
export { attachmentColumns, turnTextExpr, turnTextSql } from "./core/turn-text";
export {
  type CommitBatch,
  type CommitCheck,
  type CommitSource,
  commitPlanned,
  completeCommits,
  planCommit,
  prepareCommits,
  snapshotCommitNames,
} from "./write/commit";
export { committedRefs, committedRefsMany, sourceCommitted } from "./write/commit-records";
export { type WriteFactsResult, writeFacts } from "./write/fact-write";
export { validateCandidate } from "./write/validate";
export {
  EDITABLE_FIELDS,
  type DecisionOutcome,
  ReviewEditRefusedError,
  type ReviewCommitRef,
  type ReviewStatus,
  commitApprovedReviews,
  decideReviews,
} from "./review/review-decisions";
export {
  type AdminReviewFilter,
  type ReviewFilter,
  type ReviewView,
  listReviews,
  listReviewsForAdmin,
  pendingReviewIds,
  readReview,
} from "./review/review-reader";
export { closeReviewCommit } from "./write/review-hold";
export { documentAwaitsReview } from "./review/review-versions";
export { splitForReview } from "./review/review-rule";
