// Ctrl-C or SIGTERM on a test run leaves nothing on the shared servers: infra/test.ts removes the run's template
// and per-file databases and its tests' queue keys once Jest has stopped. A real run is interrupted here: a
// fixture test makes a database and keys, and the run is signalled once both exist.
import { spawn } from "node:child_process";
import path from "node:path";
import { Client } from "pg";
import { loadConfig } from "@recall/config";
import { createRedisConnection, type RedisConnection } from "@recall/pipeline";
import { adminUrl, waitFor } from "@recall/test-support";

const root = path.resolve(__dirname, "..");
const { DATABASE_URL, REDIS_URL } = loadConfig();
let admin: Client;
let redis: RedisConnection;

beforeAll(async () => {
  admin = new Client({ connectionString: adminUrl(DATABASE_URL) });
  await admin.connect();
  redis = createRedisConnection(REDIS_URL);
});

afterAll(async () => {
  await admin?.end();
  redis?.disconnect();
});

const databasesOf = async (runId: string) =>
  (await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`recall_test_%_${runId}%`])).rows.map(
    (r) => r.datname,
  );
const keysOf = (runId: string) => redis.keys(`{rtest-${runId}-*`);

test.each(["SIGINT", "SIGTERM"] as const)(
  "a run stopped by %s removes its databases and queue keys",
  async (signal) => {
    const run = spawn(
      process.execPath,
      [require.resolve("tsx/cli"), "infra/test.ts", "--testMatch", "**/infra/fixtures/holds-resources.fixture.ts"],
      // Its own process group, as a terminal's Ctrl-C reaches every process of the foreground job.
      { cwd: root, env: { ...process.env, RECALL_TEST_RUN_ID: undefined }, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    run.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    run.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => run.on("exit", (code) => resolve(code)));

    const held = await waitFor(
      async () => {
        if (run.exitCode !== null) throw new Error(`the run ended before the fixture held anything: ${output.slice(-2_000)}`);
        return /holding (recall_test_f_([0-9a-f]{8})_[0-9a-f]+)/.exec(output) ?? undefined;
      },
      {
        timeoutMs: 120_000,
        what: () => `the fixture to hold its database: ${output.slice(-2_000)}`,
      },
    );
    const runId = held[2]!;
    expect(await databasesOf(runId)).toEqual(expect.arrayContaining([held[1], `recall_test_t_${runId}`]));
    expect(await keysOf(runId)).toHaveLength(1);

    process.kill(-run.pid!, signal);
    expect(await exited).toBe(signal === "SIGINT" ? 130 : 143);
    expect({ databases: await databasesOf(runId), keys: await keysOf(runId) }).toEqual({ databases: [], keys: [] });
    expect(output).toContain(`${signal}: stopping the tests`);
  },
  300_000,
);
