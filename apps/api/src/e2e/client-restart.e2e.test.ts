// Both clients with their default retry policy across a real restart of the API process (apps/api/src/main.ts
// stopped with SIGTERM, then started again on the same port): calls made while nothing listens are refused, waited
// out with backoff, and answered once the new process is up (docs/clients.md, "Which calls are retried").
import { spawn } from "node:child_process";
import path from "node:path";
import { RecallClient } from "@recall/client";
import { freePort, spawnCompiledEntry, stopChild, waitFor, type SpawnedEntry } from "@recall/test-support";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

const PYTHON_CLIENT = path.resolve(__dirname, "../../../../clients/python");

let h: Harness;
let port: number;
let api: SpawnedEntry | undefined;
let context: { contextId: string; apiKey: string };
const baseUrl = () => `http://127.0.0.1:${port}`;

/** The API as its own process (compiled, as the image runs it); the harness gives it a database and a queue prefix. */
async function startApi(): Promise<SpawnedEntry> {
  const entry = await spawnCompiledEntry("apps/api/src/main.ts", [], {
    ...process.env,
    DATABASE_URL: h.config.DATABASE_URL,
    REDIS_URL: h.config.REDIS_URL,
    QUEUE_PREFIX: h.config.QUEUE_PREFIX,
    ADMIN_API_KEY: ADMIN_KEY,
    PORT: String(port),
    LOG_LEVEL: "info",
    NODE_ENV: "test",
  });
  api = entry;
  return entry;
}

/** Answers /healthz (its /readyz would also want live workers, which these calls do not need). */
async function answering(entry: SpawnedEntry): Promise<void> {
  await waitFor(
    async () => {
      if (entry.child.exitCode !== null) throw new Error(`the API exited: ${entry.output()}`);
      return fetch(`${baseUrl()}/healthz`).then(
        (res) => res.ok,
        () => false,
      );
    },
    { timeoutMs: 60_000, what: () => `the API's /healthz: ${entry.output().slice(-2_000)}` },
  );
}

beforeAll(async () => {
  // No workers: the calls below need the API only.
  h = await startHarness({}, []);
  port = await freePort();
  await answering(await startApi());
  const created = await new RecallClient({ baseUrl: baseUrl(), adminKey: ADMIN_KEY }).admin.contexts.create({ name: "restart" });
  context = { contextId: created.context_id, apiKey: created.api_key };
}, 120_000);

afterAll(async () => {
  await stopChild(api?.child);
  await h?.close();
});

/** Resolves once `count` fetches have failed for want of a server. */
function refusals(count: number) {
  let failed = 0;
  let reached!: () => void;
  const enough = new Promise<void>((resolve) => (reached = resolve));
  const fetchObserved: typeof fetch = (input, init) =>
    globalThis.fetch(input, init).catch((err: unknown) => {
      if (++failed >= count) reached();
      throw err;
    });
  return { fetch: fetchObserved, enough, failed: () => failed };
}

test("a read and a write made while the API restarts are answered by the new process, under the default policy", async () => {
  await stopChild(api!.child);
  const observed = refusals(2);
  const recall = new RecallClient({ baseUrl: baseUrl(), ...context, fetch: observed.fetch });
  const stoppedAt = Date.now();
  const reading = recall.profile({ org: "acme" });
  const writing = recall.sessions.create({ metadata: { during: "restart" } });
  // Both have been refused at least once between them before anything listens again.
  await observed.enough;
  await answering(await startApi());
  const restartMs = Date.now() - stoppedAt;

  expect((await reading).entities).toEqual([]);
  expect((await writing).session_id).toEqual(expect.any(String));
  expect(observed.failed()).toBeGreaterThanOrEqual(2);
  // The restart takes what it takes on this machine (10–15 s under tsx on a loaded one); the default budget is 30 s of waiting.
  expect(restartMs).toBeLessThan(30_000);
}, 120_000);

test("the Python client's default policy outlasts the same restart (python3 -I, the standard library only)", async () => {
  await stopChild(api!.child);
  const script = [
    "import json, sys, time",
    "sys.path.insert(0, sys.argv[1])",
    "from recall_client import RecallClient",
    "recall = RecallClient(base_url=sys.argv[2], api_key=sys.argv[3], context_id=sys.argv[4])",
    "def sleep(seconds):",
    "    print('waiting', flush=True)",
    "    time.sleep(seconds)",
    "recall._transport._sleep = sleep",
    "session_id = recall.create_session(metadata={'during': 'restart'})",
    "print(json.dumps({'session_id': session_id, 'entities': recall.profile(scope={'org': 'acme'})['entities']}))",
  ].join("\n");
  const python = spawn("python3", ["-I", "-c", script, PYTHON_CLIENT, baseUrl(), context.apiKey, context.contextId], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  python.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => python.once("close", resolve));
  // The first refusal is waited out before the API starts again.
  await new Promise<void>((resolve, reject) => {
    python.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes("waiting")) resolve();
    });
    void exited.then(() => reject(new Error(`python3 ended before its first retry: ${stdout}${stderr}`)));
  });
  await answering(await startApi());

  expect({ status: await exited, stderr }).toEqual({ status: 0, stderr: "" });
  const answer = JSON.parse(stdout.trim().split("\n").at(-1)!) as { session_id: string; entities: unknown[] };
  expect(answer).toEqual({ session_id: expect.any(String), entities: [] });
}, 120_000);
