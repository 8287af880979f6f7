// Makes sure Postgres and Redis answer before the service or the tests start.
// Uses DATABASE_URL / REDIS_URL when set, else the default local ports; when nothing
// answers there but the server binaries are installed, starts private instances with
// their data under .data/; otherwise stops with a message naming what to install.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { Client } from "pg";

const repoRoot = path.resolve(__dirname, "..");
const dataDir = path.join(repoRoot, ".data");
const PRIVATE_PG_PORT = 54_329;
const PRIVATE_REDIS_PORT = 63_799;

export interface Services {
  databaseUrl: string;
  redisUrl: string;
}

export class MissingServiceError extends Error {}

function answers(host: string, port: number, timeoutMs = 1_500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

function hostPort(url: string, defaultPort: number): [string, number] {
  const u = new URL(url);
  return [u.hostname || "127.0.0.1", Number(u.port || defaultPort)];
}

function findBinary(name: string): string | undefined {
  const which = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  const pgRoot = "/usr/lib/postgresql";
  if (existsSync(pgRoot)) {
    for (const version of readdirSync(pgRoot).sort().reverse()) {
      const candidate = path.join(pgRoot, version, "bin", name);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

async function startPrivatePostgres(): Promise<string> {
  const initdb = findBinary("initdb");
  const pgCtl = findBinary("pg_ctl");
  if (!initdb || !pgCtl) {
    throw new MissingServiceError(
      "Postgres does not answer at 127.0.0.1:5432 and no Postgres server binaries (initdb, pg_ctl) are installed.\n" +
        "Install PostgreSQL 15+ (e.g. `apt-get install postgresql`), set DATABASE_URL to a running server, or run `docker compose up -d postgres redis`.",
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
    execFileSync(initdb, ["-D", pgData, "-U", "postgres", "--auth=trust", "-E", "UTF8"], { stdio: "inherit" });
  }
  if (!(await answers("127.0.0.1", PRIVATE_PG_PORT))) {
    const opts = `-p ${PRIVATE_PG_PORT} -c listen_addresses=127.0.0.1 -k ${pgData}`;
    execFileSync(pgCtl, ["-D", pgData, "-o", opts, "-l", path.join(dataDir, "postgres.log"), "-w", "start"], { stdio: "inherit" });
  }
  return `postgresql://postgres@127.0.0.1:${PRIVATE_PG_PORT}/recall`;
}

async function startPrivateRedis(): Promise<string> {
  const redisServer = findBinary("redis-server");
  if (!redisServer) {
    throw new MissingServiceError(
      "Redis does not answer at 127.0.0.1:6379 and redis-server is not installed.\n" +
        "Install Redis 6.2+ (e.g. `apt-get install redis-server`), set REDIS_URL to a running server, or run `docker compose up -d postgres redis`.",
    );
  }
  mkdirSync(dataDir, { recursive: true });
  if (!(await answers("127.0.0.1", PRIVATE_REDIS_PORT))) {
    execFileSync(
      redisServer,
      [
        "--daemonize",
        "yes",
        "--bind",
        "127.0.0.1",
        "--port",
        String(PRIVATE_REDIS_PORT),
        "--dir",
        dataDir,
        "--logfile",
        path.join(dataDir, "redis.log"),
        "--appendonly",
        "yes",
      ],
      { stdio: "inherit" },
    );
    for (let i = 0; i < 50 && !(await answers("127.0.0.1", PRIVATE_REDIS_PORT)); i++) await new Promise((r) => setTimeout(r, 100));
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
  if (!(await answers(...hostPort(databaseUrl, 5432)))) {
    if (env.DATABASE_URL)
      throw new MissingServiceError(`Postgres does not answer at DATABASE_URL (${hostPort(databaseUrl, 5432).join(":")})`);
    databaseUrl = await startPrivatePostgres();
  }
  if (!(await answers(...hostPort(redisUrl, 6379)))) {
    if (env.REDIS_URL) throw new MissingServiceError(`Redis does not answer at REDIS_URL (${hostPort(redisUrl, 6379).join(":")})`);
    redisUrl = await startPrivateRedis();
  }
  await ensureDatabaseExists(databaseUrl);
  return { databaseUrl, redisUrl };
}
