// pnpm start: Postgres and Redis (started privately when needed), migrations, then the
// API and every queue's workers in this one process. For scale, run apps/api and
// apps/worker (with --queues) as separate processes instead; see README.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MissingServiceError, ensureServices } from "./local-services";

const repoRoot = path.resolve(__dirname, "..");

/** Without ADMIN_API_KEY a key is made once and kept in .data/admin-api-key. */
function adminKey(): string {
  const file = path.join(repoRoot, ".data", "admin-api-key");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const key = `adm_${randomBytes(24).toString("base64url")}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

async function main(): Promise<void> {
  const services = await ensureServices({ DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL });
  process.env.DATABASE_URL = services.databaseUrl;
  process.env.REDIS_URL = services.redisUrl;
  if (!process.env.ADMIN_API_KEY) {
    process.env.ADMIN_API_KEY = adminKey();
    console.log(`ADMIN_API_KEY not set; using the key in .data/admin-api-key: ${process.env.ADMIN_API_KEY}`);
  }
  // Loaded only now, so the config sees the URLs chosen above.
  const { loadConfig } = await import("@recall/config");
  const config = loadConfig();
  // Before pg, ioredis and express are first loaded, so their instrumentations can patch them.
  const { initTracing } = await import("@recall/telemetry");
  initTracing(config.OTEL_SERVICE_NAME, config.OTEL_EXPORTER_OTLP_ENDPOINT);
  const { migrate } = await import("@recall/db/src/migrator");
  const report = await migrate(config.DATABASE_URL);
  console.log(`migrations: ${report.applied.length} applied, ${report.alreadyApplied.length} already applied`);
  const { bootstrapWorker } = await import("../apps/worker/src/bootstrap");
  const { startWorkers } = await import("../apps/worker/src/worker-runtime");
  const { QUEUE_NAMES } = await import("@recall/queues");
  const { bootstrapApi } = await import("../apps/api/src/bootstrap");
  const { createServerApp } = await import("../apps/api/src/server-app");
  const worker = await bootstrapWorker(config);
  const runtime = startWorkers(worker.deps, worker.connection, QUEUE_NAMES);
  const api = bootstrapApi(config);
  const server = createServerApp(api).listen(config.PORT, () => {
    console.log(`recall listening on http://127.0.0.1:${config.PORT} (workers: ${QUEUE_NAMES.join(", ")})`);
  });
  const shutdown = () => {
    server.close();
    void runtime
      .close()
      .then(() => Promise.all([worker.close(), api.close()]))
      .then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((err: Error) => {
  console.error(err instanceof MissingServiceError ? err.message : err);
  process.exit(1);
});
