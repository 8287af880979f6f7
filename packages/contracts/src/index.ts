// What other packages use of @recall/contracts, and only that: everything else in it is internal.
export { ATTACHMENT_NOTE, Attachment, AttachmentList, attachmentText, hasAttachmentLines, turnSourceText } from "./attachments";
export { CANDIDATE_SCHEMAS, CandidateKind, ValidationIssue, candidatePayload, typedCandidate } from "./candidates";
export { ContextConfig, ReviewRule, contextConfigOf } from "./context-config";
export {
  type ActiveInstruction,
  AttributeCandidate,
  DIFF_KINDS,
  EntityCandidate,
  Evidence,
  ExtractionDiff,
  type ExtractionInput,
  type HeuristicOutcome,
  InstructionCandidate,
  type KnownAttribute,
  type KnownEntity,
  MemoryCategory,
  RelationCandidate,
  RevocationCandidate,
  Significance,
  Stage,
  UncertaintyCandidate,
  emptyDiff,
  isEmptyDiff,
} from "./diff";
export {
  ClassifiedError,
  DOMAIN_ANSWERS,
  DomainError,
  type DomainErrorCode,
  type DomainErrorDetails,
  type DomainErrorField,
  InputError,
  ServiceError,
  SetupError,
  StageFailure,
  invalidField,
  isClassifiedError,
  notFound,
} from "./errors";
export { type Escalation, type ExtractionGuidance, type ExtractionStage, type StageAttempt, type StageCall } from "./extraction-stage";
export { type GroupKind, SUBJECT_KINDS, type SubjectKind, kindOf } from "./kinds";
export {
  AliasList,
  DECISION_TEXT_CHARS,
  Metadata,
  ScopeEntry,
  ScopeForms,
  ScopeList,
  ScopeObject,
  WRITE_CAPS,
  type WriteCap,
  cappedText,
  withinMetadataCap,
  withinScopeEntries,
} from "./limits";
export {
  type AnnounceCommit,
  type CommitAnnouncement,
  type Embedder,
  type ErasedWorkItem,
  type ForgetRequest,
  type Forgotten,
  type PipelineRecords,
  type TextColumn,
} from "./ports";
export { JOB_CATALOG, type QueueName, StagePayload, SubjectType, itemResult, truthMaintained } from "./queues";
export { ByteOffsets, byteSpanOf, locateQuote, sliceBytes } from "./spans";
export { CommittedRefs, DisambiguationDecision, ExtractResult, UnitOutcome } from "./stage-results";
export { WEBHOOK_EVENT_TYPES, WEBHOOK_ID_KEYS, WebhookEventType, type WebhookIdTarget } from "./webhooks";
