// What other packages use of @recall/pipeline, and only that: everything else in it is internal.
export {
  type RedisConnection,
  createProducerConnection,
  createRedisConnection,
  createWorkerConnection,
  isRedisUnavailable,
} from "./connection";
export { WorkError, classifyError, isFinalFailure } from "./errors";
export { batchExtraction, extractionMode, turnExtraction } from "./extraction-mode";
export { ExtractAgainService, NoModelConfiguredError, type ExtractAgainOptions, type ExtractAgainReport } from "./extract-again";
export {
  type EmbeddingState,
  type InputState,
  MAINTAINED_ITEM_SQL,
  SETTLED_STATES,
  type StateItem,
  embeddingState,
  inputState,
} from "./input-state";
export { OutboxRelay } from "./outbox-relay";
export {
  BATCH_ROWS,
  PipelineRetention,
  type RetentionOptions,
  type RetentionReport,
  compactPipelineRecords,
  retentionCutoff,
} from "./pipeline-retention";
export { claimQueuePrefixFor } from "./prefix-claim";
export { isBackground } from "./priority";
export {
  type EnqueueTarget,
  type Producer,
  type QueueSet,
  createQueues,
  enqueueOrLeaveForSweeper,
  enqueueWorkItem,
  promoteWorkItem,
  redelayWorkItem,
  removeWorkItemJobs,
} from "./producer";
export { awaitingModelCounts, observePipeline, queueDepths } from "./queue-metrics";
export { RedisRateGate } from "./rate-gate";
export { PIPELINE, QUEUES, QUEUE_NAMES, type QueueName, StagePayload, SubjectType, isQueueName, jobIdFor } from "./registry";
export { NotRetryableError, requeueWorkItem, retryWorkItem } from "./retry";
export { newWebhookSecret } from "./webhooks/signature";
export { AddressPolicy, WebhookUrlError, checkWebhookUrl } from "./webhooks/url-guard";
export { WebhookDispatcher } from "./webhooks/webhook-dispatcher";
export { NotCancellableError, type RetryFrom, type WorkItemFilter, WorkItemService } from "./work-item-service";
export { markFactsPlaced, markTruthMaintained, truthMaintainedNow, writeCheckpoint } from "./work-state/checkpoints";
export { ClaimedPlan, type ClaimedWork } from "./work-state/claim-item";
export { type NewWorkItem, createWorkItems, ensureWorkItem, successorOf } from "./work-state/create-items";
export { directStages } from "./work-state/direct-stages";
export { commitAnnouncer, pipelineRecords, workOnSubject } from "./work-state/pipeline-records";
export { type NextItem, type Success, finishInTransaction, finishManyInTransaction } from "./work-state/finish-item";
export { type GroupTurnRun, type GroupTurnSucceeded, type GroupTurns, nextInGroup } from "./work-state/group-finish";
export { resetToQueued } from "./work-state/requeue-item";
export { assignWindow, failWaitingTurns, finishWaitingTurns, handOverToWindow, returnWaitingTurn } from "./work-state/window-items";
export { type GroupRef, type WindowTurnClaim, claimGroupTurns, groupKey, leaveGroup, releaseGroupTurns } from "./work-state/turn-groups";
export {
  type LoadingStage,
  type StageContext,
  type StageHandler,
  type StageProcessor,
  type StageResult,
  type StageSuccess,
  type StageWorkerOptions,
  stageSuccess,
} from "./stage-handler";
export { HAND_BACK, createStageWorker, workerName } from "./worker-factory";
export { liveWorkers, startHeartbeat } from "./worker-heartbeat";
