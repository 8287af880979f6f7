// Which index vector search uses, on the real Postgres server of the test run: pgvector's
// HNSW index where the server has the extension (CI's does not install it), the SQL scan
// otherwise. Each path's test runs where its condition holds and says why it skipped.
import { Prisma } from "@recall/db";
import { startMemoryDatabase, type MemoryDatabase } from "../../testing/memory-fixture";
import { prepareVectorIndex } from "./vector-index";
import { vectorStatements } from "./vector-sql";

let m: MemoryDatabase;
let available = false;

beforeAll(async () => {
  m = await startMemoryDatabase();
  available = (await m.db.$queryRaw<unknown[]>`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`).length > 0;
  if (!available) console.log("pgvector is not installed on this Postgres server: the pgvector path is skipped");
  else console.log("pgvector is installed on this Postgres server: the SQL-scan path is skipped");
});

afterAll(async () => {
  await m?.close();
});

const input = {
  contextId: "00000000-0000-0000-0000-000000000000",
  scope: [],
  query: "q",
  limit: 5,
  kinds: ["turn"] as const,
  match: "any" as const,
};

test("without the extension: the SQL scan, and a reason an operator can act on", async () => {
  if (available) return;
  const index = await prepareVectorIndex(m.db, 4);
  expect(index).toEqual({ kind: "sql_scan", reason: expect.stringContaining("pgvector extension is not available") });
  const [statement] = vectorStatements(input, new Date(), { model: "m", vector: [1, 0, 0, 0] });
  expect(await m.db.$queryRaw(statement!)).toEqual([]);
});

test("with the extension: an HNSW index over vector(n), which the query uses", async () => {
  if (!available) return;
  const index = await prepareVectorIndex(m.db, 4);
  expect(index).toEqual({ kind: "pgvector_hnsw", dimensions: 4 });
  const indexes = await m.db.$queryRaw<
    { indexdef: string }[]
  >`SELECT indexdef FROM pg_indexes WHERE indexname = 'embeddings_vector_hnsw_4'`;
  expect(indexes[0]?.indexdef).toMatch(/USING hnsw/);
  const [statement] = vectorStatements(input, new Date(), { model: "m", vector: [1, 0, 0, 0], pgvector: true });
  expect(await m.db.$queryRaw(statement!)).toEqual([]);
  const plan = await m.db.$queryRaw<{ "QUERY PLAN": string }[]>(Prisma.sql`EXPLAIN ${statement!}`);
  expect(plan.length).toBeGreaterThan(0);
});
