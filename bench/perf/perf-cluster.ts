// A Recall made of real processes for the performance report: one API process and worker
// processes chosen per run (`--queues`), on a fresh migrated database and queue prefix, so
// each process's resident memory can be read and extract workers can be scaled out.
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { loadConfig } from "@recall/config";
import { migrate } from "@recall/db/migrator";
import { createRedisConnection } from "@recall/pipeline";
import { adminUrl, removeQueuePrefix, spawnEntry, stopChild, withDatabase } from "@recall/test-support";

export const ADMIN = `bench-${randomBytes(8).toString("hex")}`;

export interface ClusterOptions {
  env: Record<string, string>;
  /** One entry per worker process: its --queues list ("" for every queue). */
  workers: string[];
  /** The API's port (default BENCH_PORT, else 8161); two clusters up at once need two. */
  port?: number;
  /** The Postgres server (its maintenance URL) the cluster's database is made on; default DATABASE_URL's. */
  server?: string;
  /** Streaming replicas of that server (maintenance URLs): the API reads from them (DATABASE_REPLICA_URLS). */
  replicas?: string[];
}

export interface Cluster {
  baseUrl: string;
  databaseUrl: string;
  prefix: string;
  /** The environment its processes run with, for another process of the same deployment. */
  env: NodeJS.ProcessEnv;
  api: ChildProcess;
  workers: ChildProcess[];
  close(): Promise<void>;
}

export async function startCluster({ env, workers, port: apiPort, server, replicas = [] }: ClusterOptions): Promise<Cluster> {
  const base = loadConfig();
  const serverUrl = server ?? base.DATABASE_URL;
  const database = `recall_perf_${randomBytes(4).toString("hex")}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${database}"`);
  const databaseUrl = withDatabase(serverUrl, database);
  await migrate(databaseUrl);
  const prefix = `{rperf-${randomBytes(4).toString("hex")}}`;
  const port = String(apiPort ?? process.env.BENCH_PORT ?? "8161");
  const childEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: base.REDIS_URL,
    QUEUE_PREFIX: prefix,
    ADMIN_API_KEY: ADMIN,
    LOG_LEVEL: "silent",
    NODE_ENV: "production",
    PORT: port,
    // Several worker processes on one host: none serves /metrics (each would want the same port).
    WORKER_METRICS_PORT: "0",
    ...(replicas.length > 0 ? { DATABASE_REPLICA_URLS: replicas.map((r) => withDatabase(r, database)).join(",") } : {}),
    ...env,
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  // A Recall left over from an interrupted run would answer in place of this one (with another database).
  if (
    await fetch(`${baseUrl}/healthz`).then(
      () => true,
      () => false,
    )
  )
    throw new Error(`something already answers on port ${port}: stop it, or set BENCH_PORT`);
  const api = run("apps/api/src/main.ts", [], childEnv);
  const procs = workers.map((queues) => run("apps/worker/src/main.ts", queues ? ["--queues", queues] : [], childEnv));
  // Children are killed with this process (spawnEntry), so an interrupted run leaves none behind.
  await waitReady(baseUrl, [api, ...procs]).catch(async (err: Error) => {
    await Promise.all([api, ...procs].map((p) => stopChild(p)));
    throw err;
  });
  return {
    baseUrl,
    databaseUrl,
    prefix,
    env: childEnv,
    api,
    workers: procs,
    async close() {
      await Promise.all([api, ...procs].map((p) => stopChild(p)));
      const redis = createRedisConnection(base.REDIS_URL);
      await removeQueuePrefix(redis, prefix);
      redis.disconnect();
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    },
  };
}

/** One more API process of the cluster's deployment on `port`, its environment changed by `env`; ready when answered. */
export async function startApi(
  cluster: Cluster,
  port: number,
  env: Record<string, string>,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const api = run("apps/api/src/main.ts", [], { ...cluster.env, ...env, PORT: String(port) });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitReady(baseUrl, [api]).catch(async (err: Error) => {
    await stopChild(api);
    throw err;
  });
  return { baseUrl, close: () => stopChild(api) };
}

/** node itself (not a tsx wrapper process), so the pid is the process whose memory is read. */
function run(entry: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const { child } = spawnEntry(entry, args, env, { keepOutput: 0 });
  child.stderr?.on("data", (d: Buffer) => process.stderr.write(`[${path.basename(path.dirname(path.dirname(entry)))}] ${d}`));
  return child;
}

async function waitReady(baseUrl: string, procs: ChildProcess[]): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (procs.some((p) => p.exitCode !== null)) throw new Error("a Recall process exited during start-up");
    const ok = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error("Recall did not become ready in 120 s");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Resident set size of a process, in MiB. */
export function rssMiB(child: ChildProcess): number {
  const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0");
  return kb / 1024;
}

export async function adminQuery(url: string, sql: string): Promise<void> {
  const admin = new Client({ connectionString: adminUrl(url) });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}
