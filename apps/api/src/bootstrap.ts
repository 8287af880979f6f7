import type { Config } from "@recall/config";
import { createDb } from "@recall/db";
import { createProducerConnection, createQueues } from "@recall/queues";
import { configSecrets } from "@recall/config";
import { createLogger, type LoggerOptions } from "@recall/telemetry";
import type { ApiDeps } from "./deps";
import { vectorRetriever } from "./services/vector-search";

export function bootstrapApi(config: Config, logOptions: Pick<LoggerOptions, "destination"> = {}): ApiDeps & { close(): Promise<void> } {
  const redis = createProducerConnection(config.REDIS_URL);
  const queues = createQueues({ connection: redis, prefix: config.QUEUE_PREFIX });
  const db = createDb({ databaseUrl: config.DATABASE_URL });
  const logger = createLogger(config.LOG_LEVEL, "recall-api", { ...logOptions, secrets: configSecrets(config) });
  return {
    config,
    db,
    queues,
    redis,
    logger,
    vector: vectorRetriever(config),
    async close() {
      await queues.close();
      redis.disconnect();
      await db.$disconnect();
    },
  };
}
