// Truth maintenance through the real service: turns go through every queue (the
// heuristic stage reads them, no model needed) on real Postgres and Redis, and the
// committed memory is read back through the readers the API serves (profile, history,
// state, provenance, instructions).
import { Client } from "pg";
import { enqueueWorkItem, jobIdFor } from "@recall/pipeline";
import { waitFor } from "@recall/test-support";
import { readEntityHistory, readInstructionHistory, readProfile, readProvenance, readState, retractSource } from "@recall/memory";
import { newSession, sendTurn, settled, startWorkerHarness, type WorkerHarness } from "../testing/worker-harness";

let h: WorkerHarness;
let contextId: string;
beforeAll(async () => {
  h = await startWorkerHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(async () => {
  contextId = (await h.db.context.create({ data: { name: "e2e" } })).id;
});

const ALICE = ["org=acme", "user=alice"];
const JAN = new Date("2025-01-10T09:00:00Z");
const JUN = new Date("2025-06-02T09:00:00Z");

async function say(content: string, at: Date, session?: Awaited<ReturnType<typeof newSession>>) {
  const turnId = await sendTurn(h, { contextId, session: session ?? (await newSession(h, contextId)), content, at, scope: ALICE });
  const items = await settled(h, turnId);
  expect(
    Object.values(items)
      .map((i) => [i.queue, i.status])
      .sort(),
  ).toEqual([
    ["commit_artifacts", "succeeded"],
    ["extract_assertions", "succeeded"],
    ["truth_maintenance", "succeeded"],
    ["validate_artifacts", "succeeded"],
  ]);
  return { turnId, items };
}

const reader = () => ({ contextId, scope: ALICE });

/** Alice as GET /profile lists her, where a client finds her id. */
async function alice() {
  const profile = await readProfile(h.db, { ...reader(), limit: 10 });
  return profile.entities.find((e) => e.name === "Alice Chen")!;
}

/** Her values of one key as GET /entities/{id}/history serves them: an attribute's value, a relation's object name. */
async function history(key: string) {
  const found = await readEntityHistory(h.db, { ...reader(), entityId: (await alice()).id, limit: 100 });
  return found!.values
    .filter((f) => (f.kind === "attribute" ? f.key : f.predicate) === key)
    .map((fact) => ({ value: fact.kind === "attribute" ? fact.value : fact.object.name, fact }));
}

async function instructions(includeRevoked: boolean) {
  return (await readInstructionHistory(h.db, reader(), { includeRevoked, limit: 100 })).items;
}

test("the seed example: Alice Chen, CTO at Acme, then CEO, reads back as two values, one current", async () => {
  await say("I'm Alice Chen, CTO at Acme.", JAN);
  const { turnId } = await say("Actually I'm CEO now.", JUN);

  const roles = await history("role");
  expect(roles.map((f) => [f.value, f.fact.current])).toEqual([
    ["CTO", false],
    ["CEO", true],
  ]);
  const [cto, ceo] = roles.map((f) => f.fact);
  expect(cto).toMatchObject({ valid_from: JAN, valid_to: ceo!.valid_from, superseded_by: ceo!.id });
  expect(await readProvenance(h.db, reader(), ceo!.id)).toMatchObject({
    source: { type: "turn", id: turnId },
    span: { quote: "Actually I'm CEO now" },
    extraction: { stage: "heuristic" },
  });
  expect((await history("works_at")).map((f) => [f.value, f.fact.current])).toEqual([["Acme", true]]);

  await retractSource(h.db, { contextId, sourceType: "turn", sourceId: turnId, reason: "test: forget the promotion" });
  // What POST /state serves now: the facts true now, the retracted value gone.
  const after = await readState(h.db, { ...reader(), includeResolved: false, limit: 100 });
  expect(after.facts.flatMap((f) => (f.kind === "attribute" && f.key === "role" ? [f.value] : []))).toEqual(["CTO"]);
});

test("Berlin → Lisbon through the pipeline", async () => {
  await say("I'm Alice Chen. I live in Berlin.", JAN);
  await say("I moved to Lisbon.", JUN);

  expect((await history("lives_in")).map((f) => [f.value, f.fact.current, f.fact.valid_to])).toEqual([
    ["Berlin", false, JUN],
    ["Lisbon", true, null],
  ]);
});

test("a revoked instruction is deactivated with the revoking turn, and kept", async () => {
  const session = await newSession(h, contextId);
  await say("Always respond in bullet points.", JAN, session);
  expect(await instructions(false)).toHaveLength(1);
  const { turnId } = await say("Stop using bullet points.", JUN, session);

  expect(await instructions(false)).toEqual([]);
  expect(await instructions(true)).toEqual([expect.objectContaining({ active: false, revoked_by_turn_id: turnId })]);
});

async function memoryCounts() {
  const where = { where: { contextId } };
  return [
    await h.db.entity.count(where),
    await h.db.assertion.count(where),
    await h.db.attribute.count(where),
    await h.db.relation.count(where),
    await h.db.outboxEvent.count(where),
  ];
}

test("a re-delivered commit job creates nothing twice", async () => {
  const { items } = await say("I'm Alice Chen, CTO at Acme.", JAN);
  const before = await memoryCounts();
  // What an operator retry or a stalled-job re-delivery does: the same work item runs again.
  const commit = await h.db.workItem.update({ where: { id: items.commit_artifacts.id }, data: { status: "queued" } });
  await (await h.worker.deps.queues.commit_artifacts.getJob(jobIdFor(commit.id)))?.remove();
  await enqueueWorkItem(h.worker.deps.queues, commit);
  const rerun = await waitFor(
    async () => {
      const item = await h.db.workItem.findUniqueOrThrow({ where: { id: commit.id } });
      return item.status === "succeeded" && item.startedAt! > commit.finishedAt! ? item : undefined;
    },
    { what: "the commit to run again" },
  );

  expect(rerun.status).toBe("succeeded");
  expect(await memoryCounts()).toEqual(before);
});

test("a commit that fails half-way is retried by the queue and leaves exactly one copy", async () => {
  const admin = new Client({ connectionString: h.config.DATABASE_URL });
  await admin.connect();
  try {
    // Fails the first relation insert only: a sequence survives the rollback it causes.
    await admin.query(`CREATE SEQUENCE fail_once;
      CREATE FUNCTION fail_first_relation() RETURNS trigger AS $$ BEGIN
        IF nextval('fail_once') = 1 THEN RAISE EXCEPTION 'worker crashed mid-commit'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER fail_first_relation BEFORE INSERT ON relations FOR EACH ROW EXECUTE FUNCTION fail_first_relation();`);
    const { items } = await say("I'm Alice Chen, CTO at Acme.", JAN);

    const attempts = await h.db.workAttempt.findMany({ where: { workItemId: items.commit_artifacts.id }, orderBy: { attempt: "asc" } });
    expect(attempts.map((a) => [a.status, a.errorMessage?.includes("worker crashed mid-commit") ?? false])).toEqual([
      ["failed", true],
      ["succeeded", false],
    ]);
    expect(await memoryCounts()).toEqual([2, 2, 1, 1, 1]);
  } finally {
    await admin.query("DROP TRIGGER IF EXISTS fail_first_relation ON relations");
    await admin.end();
  }
});
