// pnpm test: makes sure Postgres and Redis answer (starting private ones if needed), then runs Jest.
import { spawnSync } from "node:child_process";
import { MissingServiceError, ensureServices } from "./local-services";

async function main(): Promise<number> {
  const services = await ensureServices({ DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL });
  const jest = require.resolve("jest/bin/jest");
  const result = spawnSync(process.execPath, [jest, ...process.argv.slice(2)], {
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
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(err instanceof MissingServiceError ? err.message : err);
    process.exit(1);
  },
);
