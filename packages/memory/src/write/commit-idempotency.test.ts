// A commit is delivered at least once. Re-running it, running it twice at the same
// time, or re-running it after it died half-way must leave exactly one copy of
// everything. Failures are real: a trigger that raises inside the transaction, and a
// database backend terminated while the commit waits inside it.
import { Client } from "pg";
import { createDb } from "@recall/db";
import { waitFor } from "@recall/test-support";
import type { EntityDisambiguator } from "../entities/entity-disambiguation";
import {
  addTurn,
  commitSubject,
  maintainSubject,
  newContext,
  stageCandidates,
  startMemoryDatabase,
  validateStaged,
  type MemoryDatabase,
  type MemoryFixture,
  type TestSubject,
} from "../testing/memory-fixture";

let database: MemoryDatabase;
let f: MemoryFixture;
let admin: Client;
beforeAll(async () => {
  database = await startMemoryDatabase();
  admin = new Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await database.close();
});
beforeEach(async () => {
  f = await newContext(database.db);
});
afterEach(async () => {
  await admin.query("DROP TRIGGER IF EXISTS fail_relations ON relations; DROP TRIGGER IF EXISTS count_attributes ON attributes");
});

const TEXT = "I'm Alice Chen, CTO at Acme.";

async function stagedTurn(): Promise<TestSubject> {
  const turn = await addTurn(f, { content: TEXT, at: new Date("2025-01-10T09:00:00Z"), scope: ["org=acme", "user=alice"] });
  await stageCandidates(f, turn, {
    entities: [{ name: "Alice Chen", type: "person", memory_category: "identity", aliases: [], confidence: 0.9 }],
    attributes: [
      {
        entity: "Alice Chen",
        key: "role",
        value: "CTO",
        memory_category: "identity",
        evidence: { quote: TEXT.slice(0, -1) },
        confidence: 0.9,
        significance: "high",
      },
    ],
    relations: [
      {
        subject: "Alice Chen",
        verb: "works_at",
        object: "Acme",
        object_type: "organization",
        memory_category: "identity",
        evidence: { quote: TEXT.slice(0, -1) },
        confidence: 0.9,
        significance: "high",
      },
    ],
  });
  await validateStaged(f, turn);
  return turn;
}

async function counts() {
  const where = { where: { contextId: f.contextId } };
  return {
    entities: await f.db.entity.count(where),
    mentions: await f.db.entityMention.count(where),
    assertions: await f.db.assertion.count(where),
    attributes: await f.db.attribute.count(where),
    relations: await f.db.relation.count(where),
    commits: await f.db.commitRecord.count(where),
  };
}

const ONE_COMMIT = { entities: 2, mentions: 4, assertions: 2, attributes: 1, relations: 1, commits: 1 };
const NOTHING = { entities: 0, mentions: 0, assertions: 0, attributes: 0, relations: 0, commits: 0 };

test("committing the same work item twice writes everything once", async () => {
  const turn = await stagedTurn();
  const first = await commitSubject(f, turn);
  const second = await commitSubject(f, turn);

  expect(first.skipped).toBe(false);
  expect(second.skipped).toBe(true);
  expect(await counts()).toEqual(ONE_COMMIT);
  expect(await f.db.knowledgeCandidate.count({ where: { subjectId: turn.id, status: "committed" } })).toBe(3);
});

test("two concurrent commits of one work item: one writes, the other waits and finds it done", async () => {
  const turn = await stagedTurn();
  const results = await Promise.all([commitSubject(f, turn), commitSubject(f, turn)]);

  expect(results.map((r) => r.skipped).sort()).toEqual([false, true]);
  expect(await counts()).toEqual(ONE_COMMIT);
});

test("a commit whose transaction fails half-way leaves nothing; its re-run writes everything once", async () => {
  // A sequence is not transactional: it proves the attribute was written before the failure rolled it back.
  await admin.query(`DROP SEQUENCE IF EXISTS attribute_inserts; CREATE SEQUENCE attribute_inserts;
    CREATE OR REPLACE FUNCTION count_attribute() RETURNS trigger AS $$ BEGIN PERFORM nextval('attribute_inserts'); RETURN NEW; END $$ LANGUAGE plpgsql;
    CREATE TRIGGER count_attributes AFTER INSERT ON attributes FOR EACH ROW EXECUTE FUNCTION count_attribute();
    CREATE OR REPLACE FUNCTION fail_relation() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected failure mid-commit'; END $$ LANGUAGE plpgsql;
    CREATE TRIGGER fail_relations BEFORE INSERT ON relations FOR EACH ROW EXECUTE FUNCTION fail_relation();`);
  const turn = await stagedTurn();

  await expect(commitSubject(f, turn)).rejects.toThrow(/injected failure mid-commit/);
  const { rows } = await admin.query("SELECT is_called FROM attribute_inserts");
  expect(rows[0].is_called).toBe(true);
  expect(await counts()).toEqual(NOTHING);
  expect(await f.db.knowledgeCandidate.count({ where: { subjectId: turn.id, status: "valid" } })).toBe(3);

  await admin.query("DROP TRIGGER fail_relations ON relations");
  const rerun = await commitSubject(f, turn);
  expect(rerun.skipped).toBe(false);
  expect(await counts()).toEqual(ONE_COMMIT);
});

test("a commit killed mid-transaction (its database session terminated) leaves nothing; another worker's re-run completes it", async () => {
  await admin.query(`CREATE OR REPLACE FUNCTION stall_relation() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$ LANGUAGE plpgsql;
    CREATE TRIGGER fail_relations BEFORE INSERT ON relations FOR EACH ROW EXECUTE FUNCTION stall_relation();`);
  const turn = await stagedTurn();
  // The doomed "worker" has its own connection pool, as a separate process would.
  const doomed = createDb({ databaseUrl: database.url, poolMax: 2, unscoped: "bypass" });
  const dying = commitSubject({ ...f, db: doomed }, turn).then(
    () => "committed",
    (err: Error) => err.message,
  );
  const pid = await waitFor(
    async () => {
      const { rows } = await admin.query("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event = 'PgSleep'", [database.name]);
      return rows[0]?.pid as number | undefined;
    },
    { what: "the commit to stall inside its transaction" },
  );
  await admin.query("SELECT pg_terminate_backend($1)", [pid]);

  expect(await dying).toMatch(/terminating connection/);
  // Not awaited: the dead worker's pool never gets its broken connection back, as a killed process would not.
  void doomed.$disconnect().catch(() => undefined);
  expect(await counts()).toEqual(NOTHING);
  await admin.query("DROP TRIGGER fail_relations ON relations");
  await commitSubject(f, turn);
  expect(await counts()).toEqual(ONE_COMMIT);
  const report = await maintainSubject(f, turn);
  expect(report.superseded).toEqual([]);
});

test("a re-run after a failed commit does not ask the disambiguator again", async () => {
  const first = await addTurn(f, { content: "Acme makes widgets.", at: new Date("2025-01-01T00:00:00Z") });
  await stageCandidates(f, first, {
    entities: [{ name: "Acme", type: "product", memory_category: "knowledge", aliases: [], confidence: 0.9 }],
  });
  await validateStaged(f, first);
  await commitSubject(f, first);
  const turn = await stagedTurn();
  let asked = 0;
  const disambiguator: EntityDisambiguator = { decide: async () => (asked++, { entityId: null, reason: "the employer, not the product" }) };
  await admin.query(`CREATE OR REPLACE FUNCTION fail_relation() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected failure mid-commit'; END $$ LANGUAGE plpgsql;
    CREATE TRIGGER fail_relations BEFORE INSERT ON relations FOR EACH ROW EXECUTE FUNCTION fail_relation();`);

  await expect(commitSubject(f, turn, { disambiguator })).rejects.toThrow(/injected failure/);
  await admin.query("DROP TRIGGER fail_relations ON relations");
  await commitSubject(f, turn, { disambiguator });

  expect(asked).toBe(1);
  const acmes = await f.db.entity.findMany({ where: { contextId: f.contextId, identityKey: "acme" } });
  expect(acmes.map((e) => e.type).sort()).toEqual(["organization", "product"]);
});
