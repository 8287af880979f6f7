// POST /facts validates, commits and applies truth maintenance inside the API process. These
// tests kill that process (SIGKILL, in a child process) part-way through a direct write and
// check that the sweeper takes back the work item it left `running`, that a worker or an
// operator retry finishes it, and that nothing is committed twice.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { Client } from "pg";
import { lockKey, type WorkItem } from "@recall/db";
import { identityKey } from "@recall/memory";
import { retryWorkItem } from "@recall/pipeline";
import { waitFor } from "@recall/test-support";
import { startWorkerHarness, type WorkerHarness } from "../testing/worker-harness";

let h: WorkerHarness;
let admin: Client;
let contextId: string;

beforeAll(async () => {
  h = await startWorkerHarness();
  admin = await connect();
});
afterAll(async () => {
  await admin?.end();
  await h?.close();
});
beforeEach(async () => {
  contextId = (await h.db.context.create({ data: { name: "abandoned" } })).id;
});

const WRITE = {
  scope: ["org=acme", "user=carol"],
  attributes: [{ entity: "Carol", entity_type: "person", key: "role", value: "CFO", memory_category: "identity" }],
};
/** fact writes, entities, assertions, attributes, outbox rows: what one commit of WRITE leaves. */
const ONE_COMMIT = [1, 1, 1, 1, 1];

async function connect(): Promise<Client> {
  const client = new Client({ connectionString: h.config.DATABASE_URL });
  await client.connect();
  return client;
}

interface Writer {
  child: ChildProcess;
  exited: Promise<unknown>;
  stderr: string[];
}

function startWrite(): Writer {
  const script = path.join(__dirname, "..", "testing", "fact-write-process.ts");
  const child = spawn(process.execPath, ["--import", "tsx", script, contextId, JSON.stringify(WRITE)], {
    env: { ...process.env, DATABASE_URL: h.config.DATABASE_URL },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const stderr: string[] = [];
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  return { child, exited: once(child, "exit"), stderr };
}

/** Holds the advisory lock the write's commit transaction takes on Carol's identity key (entity-resolver.ts). */
async function holdCommitLock(): Promise<Client> {
  const client = await connect();
  await client.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [lockKey("entity", contextId, identityKey("Carol"))]);
  return client;
}

/** The backend of the writer waiting for a lock: an advisory one, or one on the named table. */
async function writerWaitingOn(writer: Writer, lock: string): Promise<number> {
  return waitFor(
    async () => {
      if (writer.child.exitCode !== null) throw new Error(`the write ended on its own: ${writer.stderr.join("")}`);
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE NOT granted AND (locktype = $1 OR relation = to_regclass($1))
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [lock],
      );
      return rows[0]?.pid;
    },
    { what: `the write to wait on ${lock}`, timeoutMs: 30_000 },
  );
}

async function kill(writer: Writer, backendPid: number): Promise<void> {
  writer.child.kill("SIGKILL");
  await writer.exited;
  // A server only notices a dead client when it next talks to it; this backend waits on a lock.
  await admin.query("SELECT pg_terminate_backend($1)", [backendPid]);
}

async function counts(): Promise<number[]> {
  const where = { where: { contextId } };
  return Promise.all([
    h.db.factWrite.count(where),
    h.db.entity.count(where),
    h.db.assertion.count(where),
    h.db.attribute.count(where),
    h.db.outboxEvent.count(where),
  ]);
}

const commitItem = () => h.db.workItem.findFirstOrThrow({ where: { contextId, queue: "commit_artifacts" } });

/** Lets the running lease pass: the items of this context look an hour older. */
async function leasePasses(): Promise<void> {
  await admin.query(
    `UPDATE work_items SET created_at = created_at - interval '1 hour', started_at = started_at - interval '1 hour' WHERE context_id = $1`,
    [contextId],
  );
}

/** Waits until the write's commit and truth maintenance both succeeded. */
async function finished(): Promise<WorkItem[]> {
  return waitFor(
    async () => {
      const items = await h.db.workItem.findMany({ where: { contextId, queue: { in: ["commit_artifacts", "truth_maintenance"] } } });
      return items.length === 2 && items.every((i) => i.status === "succeeded") ? items : undefined;
    },
    { what: "the write's commit and truth maintenance to succeed", timeoutMs: 30_000 },
  );
}

async function attemptSummary(item: WorkItem) {
  const attempts = await h.db.workAttempt.findMany({ where: { workItemId: item.id }, orderBy: { attempt: "asc" } });
  return attempts.map((a) => [a.attempt, a.status, a.errorClass, a.errorMessage?.startsWith("abandoned:") ?? false]);
}

test("killed inside its commit transaction: nothing was written; the sweeper queues it again and a worker commits it once", async () => {
  const lock = await holdCommitLock();
  const writer = startWrite();
  await kill(writer, await writerWaitingOn(writer, "advisory"));
  await lock.end();

  expect(await commitItem()).toMatchObject({ status: "running", attempts: 1 });
  expect(await counts()).toEqual([1, 0, 0, 0, 0]);
  await leasePasses();
  await h.runtime.relay.sweep();

  const [commit] = (await finished()).filter((i) => i.queue === "commit_artifacts");
  expect(await attemptSummary(commit!)).toEqual([
    [1, "failed", "abandoned", true],
    [2, "succeeded", null, false],
  ]);
  expect(await counts()).toEqual(ONE_COMMIT);
});

test("killed inside its commit with no attempts left: dead once the lease passed, and an operator retry commits it once", async () => {
  const lock = await holdCommitLock();
  const writer = startWrite();
  // The commit's writes and the record of its success are one transaction: killed anywhere in it, nothing is kept.
  await kill(writer, await writerWaitingOn(writer, "advisory"));
  await lock.end();

  const running = await commitItem();
  expect(running).toMatchObject({ status: "running", attempts: 1 });
  expect(await counts()).toEqual([1, 0, 0, 0, 0]);
  // As if the write had used every attempt it has: the sweeper leaves it to an operator.
  await h.db.workItem.update({ where: { id: running.id }, data: { maxAttempts: 1 } });
  await leasePasses();
  await h.runtime.relay.sweep();
  const dead = await commitItem();
  expect(dead).toMatchObject({ status: "dead", errorClass: "abandoned" });
  expect(dead.errorMessage).toMatch(/^abandoned: .*no attempts left/);

  await retryWorkItem(h.db, h.worker.deps.queues, dead);
  const [commit] = (await finished()).filter((i) => i.queue === "commit_artifacts");
  expect(await attemptSummary(commit!)).toEqual([
    [1, "dead", "abandoned", true],
    [2, "succeeded", null, false],
  ]);
  expect(await counts()).toEqual(ONE_COMMIT);
});
