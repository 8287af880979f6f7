// Makes sure Postgres and Redis answer before the service or the tests start.
// Uses DATABASE_URL / REDIS_URL when set, else the default local ports; when nothing
// answers there but the server binaries are installed, starts private instances with
// their data under .data/; otherwise stops with a message naming what to install.
import { SetupError } from "@recall/contracts";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { Client } from "pg";
import { parseRedisUrl } from "@recall/config";
import { findBinary, initPostgres, portAnswers, redisServerArgs, startPostgres, waitForPort } from "@recall/test-support/private-servers";

const repoRoot = path.resolve(__dirname, "..");
const dataDir = path.join(repoRoot, ".data");
const PRIVATE_PG_PORT = 54_329;
const PRIVATE_REDIS_PORT = 63_799;

export interface Services {
  databaseUrl: string;
  redisUrl: string;
}

export class MissingServiceError extends SetupError {}

function hostPort(url: string, defaultPort: number): [string, number] {
  const u = new URL(url);
  return [u.hostname || "127.0.0.1", Number(u.port || defaultPort)];
}

/** One server, or any of a cluster's seed nodes (it finds the others). */
async function redisAnswers(redisUrl: string): Promise<boolean> {
  const target = parseRedisUrl(redisUrl);
  if (target.mode !== "cluster") return portAnswers(...hostPort(redisUrl, 6379));
  const answering = await Promise.all(target.nodes.map((n) => portAnswers(n.host, n.port)));
  return answering.some(Boolean);
}

async function startPrivatePostgres(): Promise<string> {
  const initdb = findBinary("initdb");
  const pgCtl = findBinary("pg_ctl");
  if (!initdb || !pgCtl) {
    throw new MissingServiceError(
      "Postgres does not answer at 127.0.0.1:5432 and no Postgres server binaries (initdb, pg_ctl) are installed.\n" +
        'Install PostgreSQL 15+ (e.g. `apt-get install postgresql`), set DATABASE_URL to a running server, or run them with Docker (docs/docker-compose.md, "Only the backing services").',
    );
  }
  if (process.getuid?.() === 0) {
    throw new MissingServiceError(
      "Postgres does not answer at 127.0.0.1:5432, and a private Postgres cannot run as root: start the system server (pg_ctlcluster <version> main start) or set DATABASE_URL.",
    );
  }
  const pgData = path.join(dataDir, "postgres");
  if (!existsSync(path.join(pgData, "PG_VERSION"))) {
    mkdirSync(pgData, { recursive: true });
    initPostgres(pgData);
  }
  if (!(await portAnswers("127.0.0.1", PRIVATE_PG_PORT))) startPostgres(pgData, PRIVATE_PG_PORT, path.join(dataDir, "postgres.log"));
  return `postgresql://postgres@127.0.0.1:${PRIVATE_PG_PORT}/recall`;
}

async function startPrivateRedis(): Promise<string> {
  const redisServer = findBinary("redis-server");
  if (!redisServer) {
    throw new MissingServiceError(
      "Redis does not answer at 127.0.0.1:6379 and redis-server is not installed.\n" +
        'Install Redis 6.2+ (e.g. `apt-get install redis-server`), set REDIS_URL to a running server, or run them with Docker (docs/docker-compose.md, "Only the backing services").',
    );
  }
  mkdirSync(dataDir, { recursive: true });
  if (!(await portAnswers("127.0.0.1", PRIVATE_REDIS_PORT))) {
    execFileSync(
      redisServer,
      [
        "--daemonize",
        "yes",
        "--logfile",
        path.join(dataDir, "redis.log"),
        ...redisServerArgs(PRIVATE_REDIS_PORT, dataDir, { persist: true }),
      ],
      { stdio: "inherit" },
    );
    await waitForPort(PRIVATE_REDIS_PORT, true, 5_000);
  }
  return `redis://127.0.0.1:${PRIVATE_REDIS_PORT}`;
}

async function ensureDatabaseExists(databaseUrl: string): Promise<void> {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const admin = new URL(databaseUrl);
  admin.pathname = "/postgres";
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}

/** Returns URLs of a Postgres and a Redis that answer, starting private ones where needed. */
export async function ensureServices(env: { DATABASE_URL?: string; REDIS_URL?: string }): Promise<Services> {
  let databaseUrl = env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/recall";
  let redisUrl = env.REDIS_URL ?? "redis://127.0.0.1:6379";
  if (!(await portAnswers(...hostPort(databaseUrl, 5432)))) {
    if (env.DATABASE_URL)
      throw new MissingServiceError(`Postgres does not answer at DATABASE_URL (${hostPort(databaseUrl, 5432).join(":")})`);
    databaseUrl = await startPrivatePostgres();
  }
  if (!(await redisAnswers(redisUrl))) {
    if (env.REDIS_URL) throw new MissingServiceError(`Redis does not answer at REDIS_URL (${redisUrl})`);
    redisUrl = await startPrivateRedis();
  }
  await ensureDatabaseExists(databaseUrl);
  return { databaseUrl, redisUrl };
}
