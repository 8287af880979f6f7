// `npm start`'s supervisor (infra/supervisor.ts) with the real entries: the API and a worker as
// child processes. A worker killed with SIGKILL is started again while the API answers throughout;
// /readyz names the live worker processes; a turn posted after the restart is committed; SIGTERM
// stops both children.
import path from "node:path";
import { inheritedEnv, loadConfig } from "@recall/config";
import { createRedisConnection } from "@recall/pipeline";
import { createTestDatabase, freePort, removeQueuePrefix, testQueuePrefix, waitFor, type TestDatabase } from "@recall/test-support";
import { Supervisor } from "../../../../infra/supervisor";
import { children } from "../../../../infra/start";

const ADMIN = "supervisor-test-admin-key";
let database: TestDatabase;
let supervisor: Supervisor;
let url: string;
let prefix: string;
const lines: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  prefix = testQueuePrefix();
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const env = {
    ...inheritedEnv(),
    DATABASE_URL: database.url,
    QUEUE_PREFIX: prefix,
    PORT: String(port),
    ADMIN_API_KEY: ADMIN,
    LOG_LEVEL: "info",
    NODE_ENV: "test",
  };
  const specs = children({ RECALL_ROLE: "all", RECALL_WORKER_PROCESSES: 1, WORKER_METRICS_PORT: 0 }, env);
  supervisor = new Supervisor(specs, {
    cwd: path.resolve(__dirname, "../../../.."),
    stopTimeoutMs: 15_000,
    initialBackoffMs: 200,
    write: (l) => lines.push(l),
  });
  supervisor.start();
  await waitFor(() => ready(), { timeoutMs: 120_000, what: `the API and worker to be ready:\n${lines.slice(-20).join("\n")}` });
}, 180_000);

afterAll(async () => {
  await supervisor?.stop();
  const redis = createRedisConnection(loadConfig().REDIS_URL);
  await removeQueuePrefix(redis, prefix);
  redis.disconnect();
  await database?.drop();
});

async function ready(): Promise<{ checks: { name: string; ok: boolean; detail?: string }[] } | undefined> {
  const res = await fetch(`${url}/readyz`).catch(() => undefined);
  return res?.status === 200 ? ((await res.json()) as { checks: { name: string; ok: boolean; detail?: string }[] }) : undefined;
}

async function json(
  method: string,
  route: string,
  body: object,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test("restarts a worker killed with SIGKILL while the API keeps answering; /readyz names live workers", async () => {
  const readiness = await ready();
  expect(readiness?.checks.find((c) => c.name === "workers")).toMatchObject({
    ok: true,
    detail: expect.stringMatching(/1 worker process alive/),
  });
  const worker = supervisor.status().find((c) => c.name === "worker-1")!;
  process.kill(worker.pid!, "SIGKILL");
  const health: number[] = [];
  const restarted = await waitFor(
    async () => {
      const res = await fetch(`${url}/healthz`);
      health.push(res.status);
      const now = supervisor.status().find((c) => c.name === "worker-1")!;
      return now.restarts === 1 && now.pid !== worker.pid ? now : undefined;
    },
    { timeoutMs: 30_000, what: "the worker to be started again" },
  );
  expect(health.every((status) => status === 200)).toBe(true);
  expect(lines.some((l) => l.includes('"child":"worker-1"') && l.includes("exited on its own (signal SIGKILL)"))).toBe(true);

  // The new worker process takes work: a turn posted now is committed.
  const context = await json("POST", "/api/v1/contexts", { name: "supervised" }, { Authorization: `Bearer ${ADMIN}` });
  const key = { "API-KEY": String(context.body["api_key"]) };
  const base = `/api/v1/${String(context.body["context_id"])}`;
  const session = await json("POST", `${base}/sessions`, {}, key);
  const turn = await json(
    "POST",
    `${base}/sessions/${String(session.body["session_id"])}/turns`,
    { role: "user", content: "I'm Alice, CTO at Acme." },
    key,
  );
  expect(turn.status).toBe(200);
  expect(turn.body["extraction"]).toMatchObject({ status: "committed" });
  expect(restarted.pid).not.toBe(worker.pid);
  // Log lines of the children are labelled with the child's name.
  expect(lines.some((l) => l.startsWith('{"process":"api"'))).toBe(true);
  expect(lines.some((l) => l.startsWith('{"process":"worker-1"'))).toBe(true);
}, 120_000);

test("SIGTERM to the supervisor stops every child", async () => {
  const pids = supervisor.status().map((c) => c.pid!);
  await supervisor.stop("SIGTERM");
  for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  expect(lines.filter((l) => l.includes("stopped ("))).toHaveLength(2);
}, 60_000);
