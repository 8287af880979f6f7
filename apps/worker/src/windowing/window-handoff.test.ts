// A turn can sit in two windows: its extraction joined one, its worker was killed before the job
// completed, and the job's second run joined another. Both windows may then read it. Only one may
// finish it: a second finish would replace the candidates the first staged (and validation may
// already have checked) with unvalidated ones, and the turn's fact would never be committed (found
// by the worker crash test, worker-crash.faults.test.ts).
import { randomUUID } from "node:crypto";
import { Client } from "pg";
import { loadConfig } from "@recall/config";
import { emptyDiff, type ExtractionDiff } from "@recall/contracts";
import { asOwner, createDb, type Db } from "@recall/db";
import { createProducerConnection, createQueues, ensureWorkItem, type Producer, type RedisConnection } from "@recall/pipeline";
import { createLogger } from "@recall/telemetry";
import { createTestDatabase, removeQueuePrefix, testQueuePrefix, waitFor, type TestDatabase } from "@recall/test-support";
import { finishTurns } from "./window-handoff";

let database: TestDatabase;
let db: Db;
let producer: Producer;
let redis: RedisConnection;
const prefix = testQueuePrefix();

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb({ databaseUrl: database.url, unscoped: "bypass" });
  redis = createProducerConnection(loadConfig().REDIS_URL);
  producer = { queues: createQueues({ connection: redis, prefix }), logger: createLogger("silent", "window-handoff-test") };
});

afterAll(async () => {
  await producer?.queues.close();
  await removeQueuePrefix(redis, prefix);
  redis?.disconnect();
  await db?.$disconnect();
  await database?.drop();
});

const reading = (windowId: string) => ({
  windowId,
  traceId: "e".repeat(32),
  model: "openai:test",
  reason: "window of 1 turn",
  windowTokens: 10,
});
const [w1, w2, w3] = [randomUUID(), randomUUID(), randomUUID()];

function diffOf(object: string): ExtractionDiff {
  const relation = {
    subject: "Kestrel",
    verb: "feeds",
    object,
    memory_category: "knowledge",
    evidence: { quote: `Kestrel feeds ${object}` },
  };
  return { ...emptyDiff(), relations: [relation] } as ExtractionDiff;
}

test("two windows finishing the same waiting turn at once: one stages its candidates, the other leaves them", async () => {
  const context = await db.context.create({ data: { name: "handoff" } });
  const session = await db.session.create({ data: { contextId: context.id } });
  const turn = await db.turn.create({
    data: { contextId: context.id, sessionId: session.id, seq: 1, role: "user", content: "Kestrel feeds Heron.", traceId: randomUUID() },
  });
  const item = await ensureWorkItem(db, {
    contextId: context.id,
    queue: "extract_assertions",
    subjectType: "turn",
    subjectId: turn.id,
    traceId: turn.traceId,
  });
  await db.workItem.update({ where: { id: item.id }, data: { status: "waiting", attempts: 1 } });
  await db.workAttempt.create({ data: { workItemId: item.id, attempt: 1, status: "waiting", startedAt: new Date() } });

  // Another transaction holds the turn's item, so both finishes are under way together when it lets go.
  const holder = new Client({ connectionString: database.url });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query("SELECT id FROM work_items WHERE id = $1 FOR UPDATE", [item.id]);
  const finishes = [
    finishTurns(db, producer, [turn], [diffOf("Heron")], reading(w1)),
    finishTurns(db, producer, [turn], [diffOf("Osprey")], reading(w2)),
  ];
  // Read outside the holder's transaction: inside one, Postgres answers pg_stat_activity from a snapshot.
  await waitFor(
    async () => {
      // As the connecting user: the service role is not shown other sessions' wait events.
      const [row] = await asOwner(
        "test-fixture",
        () => db.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return row!.n >= 2;
    },
    { what: "both finishes to wait for the turn's item" },
  );
  await holder.query("COMMIT");
  await holder.end();
  await Promise.all(finishes);

  const candidates = await db.knowledgeCandidate.findMany({ where: { workItemId: item.id } });
  expect(candidates).toHaveLength(1);
  expect(["Heron", "Osprey"]).toContain((candidates[0]!.payload as { object: string }).object);
  expect(await db.workItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({ status: "succeeded" });
  // The turn's validation waits for the validation of the window that finished it, which alone is queued.
  const validate = await db.workItem.findFirstOrThrow({ where: { subjectId: turn.id, queue: "validate_artifacts" } });
  expect(validate).toMatchObject({ status: "waiting" });
  const winner = (validate.payload as { window_id: string }).window_id;
  expect([w1, w2]).toContain(winner);
  expect(await db.workItem.findMany({ where: { subjectType: "window", queue: "validate_artifacts" } })).toMatchObject([
    { subjectId: winner, status: "queued" },
  ]);

  // A window that reads the turn later still leaves it alone.
  await finishTurns(db, producer, [turn], [diffOf("Wren")], reading(w3));
  expect(await db.knowledgeCandidate.findMany({ where: { workItemId: item.id } })).toEqual(candidates);
});
