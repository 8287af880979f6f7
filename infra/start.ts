// npm start / pnpm start: Postgres and Redis (started privately when needed), migrations, then
// the API and the workers as child processes of one supervisor (infra/supervisor.ts): a crashed
// child is restarted, SIGTERM drains each as it would alone. RECALL_ROLE=api|worker runs one
// role; RECALL_WORKER_PROCESSES runs more worker processes. See docs/operating.md.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MissingServiceError, ensureServices } from "./local-services";
import { Supervisor, type ChildSpec } from "./supervisor";

const repoRoot = path.resolve(__dirname, "..");
const ADMIN_KEY_FILE = path.join(repoRoot, ".data", "admin-api-key");

/** Without ADMIN_API_KEY a key is made once and kept in .data/admin-api-key (never written to the log). */
function adminKey(): string {
  if (existsSync(ADMIN_KEY_FILE)) return readFileSync(ADMIN_KEY_FILE, "utf8").trim();
  mkdirSync(path.dirname(ADMIN_KEY_FILE), { recursive: true });
  const key = `adm_${randomBytes(24).toString("base64url")}`;
  writeFileSync(ADMIN_KEY_FILE, `${key}\n`, { mode: 0o600 });
  return key;
}

async function main(): Promise<void> {
  const services = await ensureServices({ DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL });
  process.env.DATABASE_URL = services.databaseUrl;
  process.env.REDIS_URL = services.redisUrl;
  if (!process.env.ADMIN_API_KEY) {
    process.env.ADMIN_API_KEY = adminKey();
    console.log(`ADMIN_API_KEY not set; using the key kept in ${path.relative(process.cwd(), ADMIN_KEY_FILE) || ADMIN_KEY_FILE}`);
  }
  // Loaded only now, so the config sees the URLs chosen above.
  const { inheritedEnv, loadConfig } = await import("@recall/config");
  const config = loadConfig();
  const { migrate } = await import("@recall/db/migrator");
  const report = await migrate(config.DATABASE_URL);
  console.log(`migrations: ${report.applied.length} applied, ${report.alreadyApplied.length} already applied`);
  const supervisor = new Supervisor(children(config, inheritedEnv()), {
    cwd: repoRoot,
    stopTimeoutMs: config.SHUTDOWN_TIMEOUT_MS + 5_000,
  });
  supervisor.start();
  console.log(`recall (${config.RECALL_ROLE}) on http://127.0.0.1:${config.PORT}`);
  const shutdown = (signal: NodeJS.Signals) => void supervisor.stop(signal).then(() => process.exit(0));
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

type RoleConfig = { RECALL_ROLE: "all" | "api" | "worker"; RECALL_WORKER_PROCESSES: number; WORKER_METRICS_PORT: number };

/** The API and RECALL_WORKER_PROCESSES workers, as RECALL_ROLE says; each worker on its own metrics port. */
export function children(config: RoleConfig, env: NodeJS.ProcessEnv): ChildSpec[] {
  const specs: ChildSpec[] = [];
  if (config.RECALL_ROLE !== "worker") specs.push({ name: "api", entry: "apps/api/src/main.ts", env });
  if (config.RECALL_ROLE === "api") return specs;
  for (let i = 1; i <= config.RECALL_WORKER_PROCESSES; i++) {
    const metricsPort = config.WORKER_METRICS_PORT === 0 ? 0 : config.WORKER_METRICS_PORT + i - 1;
    specs.push({ name: `worker-${i}`, entry: "apps/worker/src/main.ts", env: { ...env, WORKER_METRICS_PORT: String(metricsPort) } });
  }
  return specs;
}

if (require.main === module) {
  main().catch((err: Error) => {
    console.error(err instanceof MissingServiceError ? err.message : err);
    process.exit(1);
  });
}
