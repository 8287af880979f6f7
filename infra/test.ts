// pnpm test: makes sure Postgres and Redis answer (starting private ones if needed), then runs Jest.
// `--redis-cluster` (pnpm test:cluster) first starts a private three-node Redis Cluster and runs
// the tests against it (REDIS_URL=redis-cluster://…), removing it afterwards.
// However Jest ends (finished, Ctrl-C, SIGTERM, a crash), the databases and queue keys of its run are removed
// afterwards: the run's id is chosen here and passed down (RECALL_TEST_RUN_ID), so its names can be found.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import { PrivateRedisCluster } from "@recall/test-support/private-servers";
import { removeTestRun } from "@recall/test-support/test-run";
import { MissingServiceError, ensureServices } from "./local-services";

const CLUSTER_FLAG = "--redis-cluster";
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type HandledSignal = keyof typeof SIGNAL_EXIT;

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const cluster = args.includes(CLUSTER_FLAG) ? await PrivateRedisCluster.start() : undefined;
  try {
    const redisUrl = cluster?.url ?? process.env.REDIS_URL;
    if (cluster) console.log(`Redis Cluster: ${cluster.url}`);
    const services = await ensureServices({ DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: redisUrl });
    const runId = randomBytes(4).toString("hex");
    const code = await runJest(
      args.filter((a) => a !== CLUSTER_FLAG),
      {
        ...process.env,
        DATABASE_URL: services.databaseUrl,
        REDIS_URL: services.redisUrl,
        RECALL_TEST_RUN_ID: runId,
        NODE_ENV: "test",
        LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
      },
    );
    await removeTestRun(services.databaseUrl, services.redisUrl, runId).catch((err: Error) =>
      console.error(`could not remove test run ${runId}'s databases and keys: ${err.message}`),
    );
    return code;
  } finally {
    await cluster?.close();
  }
}

/**
 * Jest in a process group of its own, so a signal to this process reaches Jest, its workers and the services
 * tests spawned, and this process outlives them to clean up. Resolves with Jest's exit code, or the signal's.
 */
function runJest(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const jest = spawn(process.execPath, [require.resolve("jest/bin/jest"), ...args], { stdio: "inherit", env, detached: true });
  let stoppedBy: HandledSignal | undefined;
  let signals = 0;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-jest.pid!, signal);
    } catch {
      // the group is gone already
    }
  };
  const onSignal = (signal: HandledSignal) => {
    // One Ctrl-C may arrive twice (from the terminal and relayed by tsx); pressed again, it stops the tests at once.
    if (++signals >= 3) return killGroup("SIGKILL");
    if (stoppedBy) return;
    stoppedBy = signal;
    console.error(`\n${signal}: stopping the tests, then removing this run's databases and queue keys`);
    killGroup(signal === "SIGINT" ? "SIGINT" : "SIGTERM");
  };
  for (const signal of Object.keys(SIGNAL_EXIT) as HandledSignal[]) process.on(signal, onSignal);
  return new Promise((resolve) => {
    jest.on("exit", (code, signal) => {
      // Whatever of the group outlived Jest (a worker, a spawned API) is stopped before its databases go.
      killGroup("SIGKILL");
      resolve(stoppedBy ? SIGNAL_EXIT[stoppedBy] : (code ?? 128 + (signal ? os.constants.signals[signal] : 0)));
    });
  });
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(err instanceof MissingServiceError ? err.message : err);
    process.exit(1);
  },
);
