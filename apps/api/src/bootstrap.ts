import type { Config } from "@recall/config";
import { createDb } from "@recall/db";
import { WorkItemService, createProducerConnection, createQueues, observePipeline } from "@recall/queues";
import { createLogger, setModelPrices } from "@recall/telemetry";
import type { ApiDeps } from "./deps";
import { vectorRetriever } from "./services/vector-search";

export function bootstrapApi(config: Config): ApiDeps & { close(): Promise<void> } {
  const redis = createProducerConnection(config.REDIS_URL);
  const queues = createQueues({ connection: redis, prefix: config.QUEUE_PREFIX });
  const db = createDb({ databaseUrl: config.DATABASE_URL });
  const logger = createLogger(config.LOG_LEVEL, "recall-api");
  observePipeline(db, queues);
  setModelPrices(config.RECALL_MODEL_PRICES_JSON);
  return {
    config,
    db,
    queues,
    redis,
    logger,
    workItems: new WorkItemService({ db, queues, logger }),
    vector: vectorRetriever(config),
    async close() {
      await queues.close();
      redis.disconnect();
      await db.$disconnect();
    },
  };
}
