// What other packages use of @recall/test-support, and only that: everything else in it is internal.
export { compiledCpuTasks, compiledEntry } from "./compiled-entry";
export { type TestDatabase, adminQuery, adminUrl, createTestDatabase, withDatabase } from "./databases";
export { type AcceptedInput, type EffectsReport, auditEffects, describeEffects } from "./effects-audit";
export { auditExactlyOnce, exactlyOnceMismatches } from "./exactly-once-audit";
export { FAKE_EMBEDDING_DIMENSIONS, defaultEmbedding, embeddingInputs, embeddingReply, embeddingsState } from "./fake-embeddings";
export {
  type FakeLlmResponse,
  type FakeLlmServer,
  type FakeRecordedRequest,
  type FakeResponder,
  promptText,
  startFakeLlmServer,
} from "./fake-llm-server";
export { type CodeBlock, codeBlocks, documentationCodeBlocks, documentationFiles } from "./markdown-code-blocks";
export { buildPdf } from "./pdf-fixture";
export { PrivatePostgres, PrivateRedis, PrivateRedisCluster, freePort, portAnswers } from "./private-servers";
export { type SpawnedEntry, runCommand, spawnCompiledEntry, spawnEntry, stopChild } from "./processes";
export { sampleValue } from "./prometheus-text";
export { removeQueuePrefix, testQueuePrefix } from "./queues";
export { removeTestRun } from "./test-run";
export { waitFor } from "./wait-for";
export { type ReceivedRequest, type WebhookReceiver, startWebhookReceiver } from "./webhook-receiver";
