import type { Config } from "@recall/config";
import { ReadReplicas, createDb, serviceRoleOf } from "@recall/db";
import { WorkItemService, claimQueuePrefixFor, createProducerConnection, createQueues, observePipeline } from "@recall/pipeline";
import { configSecrets } from "@recall/config";
import { createLogger, observeReplicas, setModelPrices, type LoggerOptions } from "@recall/telemetry";
import type { ApiDeps } from "./deps";
import { Drain } from "./http/drain";
import { ErasureService } from "./services/erasure.service";
import { PortabilityService } from "./services/portability.service";
import { ReviewService } from "./services/review.service";
import { createTurnCompletion } from "./services/turn-completion";
import { TurnService } from "./services/turn.service";
import { vectorRetriever } from "./services/vector-search";

export function bootstrapApi(config: Config, logOptions: Pick<LoggerOptions, "destination"> = {}): ApiDeps & { close(): Promise<void> } {
  const logger = createLogger(config.LOG_LEVEL, "recall-api", { ...logOptions, secrets: configSecrets(config) });
  const redis = createProducerConnection(config.REDIS_URL);
  const queues = createQueues({ connection: redis, prefix: config.QUEUE_PREFIX, logger });
  const db = createDb({ databaseUrl: config.DATABASE_URL, serviceRole: serviceRoleOf(config) });
  const reads = readReplicas(config, db);
  // Exports read their snapshots here, never on `db`: a client that stops reading holds one of these (docs/limits.md).
  const snapshots = createDb({
    databaseUrl: config.DATABASE_URL,
    poolMax: config.RECALL_EXPORT_CONCURRENCY,
    serviceRole: serviceRoleOf(config),
  });
  const vector = vectorRetriever(config);
  // Decided at start-up: pgvector's index when the server has the extension, else the SQL scan (reported by /readyz).
  void vector?.index?.(db).then((index) => logger.info({ index }, "vector search index"));
  const turns = createTurnCompletion(config.DATABASE_URL, config.TURN_FALLBACK_POLL_MS, logger);
  observePipeline(db, queues);
  setModelPrices(config.RECALL_MODEL_PRICES_JSON);
  const turnService = new TurnService(
    { db, queues, logger },
    { turnTimeoutMs: config.TURN_TIMEOUT_MS, completion: turns, sessionWaitMs: config.RECALL_SESSION_WAIT_MS },
  );
  const reviews = new ReviewService({ db, queues, logger });
  return {
    config,
    db,
    reads,
    queues,
    redis,
    logger,
    turns,
    turnService,
    vector,
    workItems: new WorkItemService({ db, queues, logger }),
    reviews,
    portability: new PortabilityService({ db, queues, logger, reviews, snapshots }, portabilityOptions(config)),
    erasures: new ErasureService({ db, queues, logger }, { blobDir: config.RECALL_BLOB_DIR }),
    drain: new Drain(),
    async close() {
      await turns.listener.close();
      await queues.close();
      redis.disconnect();
      await reads?.close();
      await snapshots.$disconnect();
      await db.$disconnect();
    },
  };
}

function portabilityOptions(config: Config) {
  return {
    documentMaxBytes: config.RECALL_DOCUMENT_MAX_BYTES,
    directWriteMaxBytes: config.REQUEST_BODY_LIMIT_BYTES,
    exports: { total: config.RECALL_EXPORT_CONCURRENCY, perContext: config.RECALL_EXPORT_CONTEXT_CONCURRENCY },
    imports: { total: config.RECALL_IMPORT_CONCURRENCY, perContext: config.RECALL_IMPORT_CONTEXT_CONCURRENCY },
  };
}

/** DATABASE_REPLICA_URLS's replicas, checked from now on; until a replica's first check answers, reads run on the primary. */
function readReplicas(config: Config, primary: ReturnType<typeof createDb>): ReadReplicas | undefined {
  if (config.DATABASE_REPLICA_URLS.length === 0) return undefined;
  const reads = new ReadReplicas({
    primary,
    primaryUrl: config.DATABASE_URL,
    urls: config.DATABASE_REPLICA_URLS,
    connect: (url) => createDb({ databaseUrl: url, serviceRole: serviceRoleOf(config) }),
    waitMs: config.RECALL_REPLICA_WAIT_MS,
    maxLagMs: config.RECALL_REPLICA_MAX_LAG_MS,
    checkEveryMs: config.RECALL_REPLICA_CHECK_MS,
  });
  void reads.start();
  observeReplicas(() => reads.statuses());
  return reads;
}

/**
 * Before the API takes a request: its QUEUE_PREFIX is claimed in Redis for its database, or the
 * process refuses to start (another deployment's database holds it; see @recall/pipeline prefix-claim.ts).
 */
export async function claimDeployment(deps: Pick<ApiDeps, "db" | "redis" | "config" | "logger">): Promise<void> {
  const claim = await claimQueuePrefixFor({ db: deps.db, redis: deps.redis, prefix: deps.config.QUEUE_PREFIX });
  deps.logger.info({ queuePrefix: deps.config.QUEUE_PREFIX, database: claim.database, created: claim.created }, "queue prefix claimed");
}
