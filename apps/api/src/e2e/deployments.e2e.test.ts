// Two deployments on one Redis (issue 21): staging and production left on the default
// QUEUE_PREFIX would take each other's jobs. The first to start claims the prefix for its
// database; the other's API and workers refuse to start with a message naming QUEUE_PREFIX, and
// the first goes on as if nothing happened. With a prefix of its own the second starts.
import { configWith } from "@recall/config";
import { createTestDatabase, removeQueuePrefix, testQueuePrefix, type TestDatabase } from "@recall/test-support";
import { createRedisConnection } from "@recall/pipeline";
import { bootstrapWorker } from "@recall/worker/bootstrap";
import { bootstrapApi, claimDeployment } from "../bootstrap";
import { contextClient, createContext } from "../testing/api-client";
import { startApiProcess } from "../testing/api-process";
import { startHarness, type Harness } from "../testing/harness";

let production: Harness;
let staging: TestDatabase;

beforeAll(async () => {
  production = await startHarness();
  staging = await createTestDatabase();
});

afterAll(async () => {
  await production?.close();
  await staging?.drop();
});

const stagingConfig = (prefix: string) =>
  configWith({
    DATABASE_URL: staging.url,
    REDIS_URL: production.config.REDIS_URL,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
  });

test("a second database on the same QUEUE_PREFIX is refused at start-up, by its workers and its API", async () => {
  const sameRedis = stagingConfig(production.config.QUEUE_PREFIX);
  await expect(bootstrapWorker(sameRedis)).rejects.toThrow(
    `QUEUE_PREFIX ${production.config.QUEUE_PREFIX} is claimed in this Redis by another database`,
  );
  const api = bootstrapApi(sameRedis);
  try {
    await expect(claimDeployment(api)).rejects.toThrow(/QUEUE_PREFIX .* is claimed/);
  } finally {
    await api.close();
  }
  // The process `pnpm start` runs exits before it listens, saying why.
  const env = {
    DATABASE_URL: staging.url,
    REDIS_URL: production.config.REDIS_URL,
    QUEUE_PREFIX: production.config.QUEUE_PREFIX,
    LOG_LEVEL: "info",
  };
  await expect(startApiProcess(env)).rejects.toThrow(
    /the API exited while starting:[\s\S]*QUEUE_PREFIX .* is claimed in this Redis by another database/,
  );

  // Production never noticed: its turns are extracted by its own workers.
  const api1 = contextClient(production.app, await createContext(production.app, "prod"));
  const turn = await api1.turn(await api1.session(), "I'm Alice, CTO at Acme.", []);
  expect(turn.extraction.status).toBe("committed");
});

test("with a prefix of its own, the second deployment starts beside the first", async () => {
  const own = stagingConfig(testQueuePrefix());
  const worker = await bootstrapWorker(own);
  const api = bootstrapApi(own);
  try {
    await expect(claimDeployment(api)).resolves.toBeUndefined();
  } finally {
    await api.close();
    await worker.close();
    const redis = createRedisConnection(own.REDIS_URL);
    await removeQueuePrefix(redis, own.QUEUE_PREFIX);
    redis.disconnect();
  }
});
