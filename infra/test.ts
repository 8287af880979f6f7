// pnpm test: makes sure Postgres and Redis answer (starting private ones if needed), then runs Jest.
// `--redis-cluster` (pnpm test:cluster) first starts a private three-node Redis Cluster and runs
// the tests against it (REDIS_URL=redis-cluster://…), removing it afterwards.
import { spawnSync } from "node:child_process";
import { PrivateRedisCluster } from "@recall/test-support/private-servers";
import { MissingServiceError, ensureServices } from "./local-services";

const CLUSTER_FLAG = "--redis-cluster";

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const cluster = args.includes(CLUSTER_FLAG) ? await PrivateRedisCluster.start() : undefined;
  try {
    const redisUrl = cluster?.url ?? process.env.REDIS_URL;
    if (cluster) console.log(`Redis Cluster: ${cluster.url}`);
    const services = await ensureServices({ DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: redisUrl });
    const jest = require.resolve("jest/bin/jest");
    const result = spawnSync(process.execPath, [jest, ...args.filter((a) => a !== CLUSTER_FLAG)], {
      stdio: "inherit",
      env: {
        ...process.env,
        DATABASE_URL: services.databaseUrl,
        REDIS_URL: services.redisUrl,
        NODE_ENV: "test",
        LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
      },
    });
    return result.status ?? 1;
  } finally {
    await cluster?.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(err instanceof MissingServiceError ? err.message : err);
    process.exit(1);
  },
);
