// Read models on a real Postgres database: the SQL scope rule agrees with scopeVisible,
// and document text is searched within the document's own scope.
import { Prisma, asOwner, createDb, type Db } from "@recall/db";
import { createTestDatabase, type TestDatabase } from "@recall/test-support";
import { scopeVisible } from "../core/scope";
import { readFacts } from "./fact-query";
import { searchMemory } from "./search/search-reader";
import { searchStatements } from "./search/search-ranked";
import { SEARCH_KINDS } from "./search/search-types";
import { scopeSetIdOf } from "../core/scope-sets";

let database: TestDatabase;
let db: Db;
let contextId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb({ databaseUrl: database.url, poolMax: 2, unscoped: "bypass" });
  contextId = (await db.context.create({ data: { name: "read-models" } })).id;
});

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

const WRITTEN = [[], ["org=acme"], ["org=acme", "user=alice"], ["org=acme", "user=bob"], ["org=other"]];
const READERS = [[], ["org=acme"], ["org=acme", "user=alice"], ["org=acme", "user=bob", "team=x"]];

async function attribute(scope: string[], value: string): Promise<string> {
  const scopeSetId = await scopeSetIdOf(db, contextId, scope);
  const entity = await db.entity.create({
    data: { contextId, name: value, identityKey: value, type: "topic", memoryCategory: "context", scopeSetId },
  });
  const assertion = await db.assertion.create({
    data: {
      contextId,
      subjectEntityId: entity.id,
      predicate: "note",
      objectLiteral: value,
      startByte: 0,
      endByte: 1,
      quote: "x",
      confidence: 1,
      significance: "high",
      memoryCategory: "context",
      stage: "direct",
      scopeSetId,
      traceId: "t",
    },
  });
  const row = await db.attribute.create({
    data: {
      contextId,
      entityId: entity.id,
      key: "note",
      value,
      memoryCategory: "context",
      confidence: 1,
      assertionId: assertion.id,
      scopeSetId,
      validFrom: new Date(0),
    },
  });
  return row.id;
}

test("the SQL scope rule (scope <@ reader) answers exactly as scopeVisible for every pair", async () => {
  const ids = await Promise.all(WRITTEN.map((scope, i) => attribute(scope, `value${i}`)));
  for (const reader of READERS) {
    const seen = new Set((await readFacts(db, { contextId, scope: reader })).map((f) => f.id));
    WRITTEN.forEach((written, i) => {
      expect({ written, reader, seen: seen.has(ids[i]!) }).toEqual({ written, reader, seen: scopeVisible(written, reader) });
    });
  }
});

test("document nodes are found within the document's scope, linked to their byte span", async () => {
  const text = "Ünïcode first. The gearbox tolerances drift in winter.";
  const start = Buffer.byteLength("Ünïcode first. ");
  const document = await db.document.create({
    data: {
      contextId,
      text,
      contentHash: "h",
      traceId: "t",
      metadata: { scope: ["org=acme"] },
      nodes: { create: [{ ordinal: 0, startByte: start, endByte: Buffer.byteLength(text), text: text.slice("Ünïcode first. ".length) }] },
    },
  });
  const search = async (scope: string[]) =>
    (await searchMemory(db, { contextId, scope, query: "gearbox winter", limit: 5, kinds: SEARCH_KINDS, match: "all" })).results;
  const [hit] = await search(["org=acme", "user=alice"]);
  expect(hit).toMatchObject({
    kind: "document_node",
    link: { document_id: document.id, start_byte: start, end_byte: Buffer.byteLength(text) },
  });
  expect(Buffer.from(text).subarray(hit!.link.start_byte, hit!.link.end_byte).toString()).toBe(hit!.text);
  expect(await search(["org=other"])).toEqual([]);
});

test("match any needs one of the words, match all needs every word, stop words alone find nothing", async () => {
  const { results: any } = await searchMemory(db, {
    contextId,
    scope: ["org=acme"],
    query: "gearbox spaceship",
    limit: 5,
    kinds: ["document_node"],
    match: "any",
  });
  expect(any).toHaveLength(1);
  const { results: all } = await searchMemory(db, {
    contextId,
    scope: ["org=acme"],
    query: "gearbox spaceship",
    limit: 5,
    kinds: ["document_node"],
    match: "all",
  });
  expect(all).toEqual([]);
  expect(
    (await searchMemory(db, { contextId, scope: ["org=acme"], query: "the of and", limit: 5, kinds: SEARCH_KINDS, match: "any" })).results,
  ).toEqual([]);
});

test("search over many turns uses the GIN index over their stored tsvectors", async () => {
  const session = await db.session.create({ data: { contextId } });
  await db.$executeRaw`
    INSERT INTO turns (id, context_id, session_id, seq, role, content, trace_id)
    SELECT gen_random_uuid(), ${contextId}::uuid, ${session.id}::uuid, n, 'user',
      CASE WHEN n % 500 = 0 THEN 'the gearbox rattles at ' || n ELSE 'nothing to see on line ' || n END, 't'
    FROM generate_series(1, 3000) AS n`;
  // VACUUM moves the batch out of the GIN index's pending list, as autovacuum does in service;
  // until then the planner rightly costs the index as a scan of that unsorted list.
  // As the tables' owner: the service role may not vacuum.
  await asOwner("test-fixture", () => db.$executeRaw`VACUUM ANALYZE turns`);
  const [statement] = searchStatements({ contextId, scope: [], query: "gearbox", limit: 5, kinds: ["turn"], match: "any" }, new Date());
  const plan = await db.$queryRaw<{ "QUERY PLAN": string }[]>(Prisma.sql`EXPLAIN ${statement!}`);
  expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toContain("turns_content_tsv_idx");
  const { results: hits } = await searchMemory(db, { contextId, scope: [], query: "gearbox", limit: 10, kinds: ["turn"], match: "any" });
  // The six matching turns first, then turns next to them in the session, which share a little of their score.
  expect(hits.slice(0, 6).map((h) => h.text.replace(/\d+$/, "N"))).toEqual(Array(6).fill("the gearbox rattles at N"));
  const matchedSeqs = hits.slice(0, 6).map((h) => h.link.seq!);
  for (const h of hits.slice(6)) expect(matchedSeqs.some((seq) => Math.abs(seq - h.link.seq!) === 1)).toBe(true);
});
