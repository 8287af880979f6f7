// A Postgres that goes away under the client, on a private server of this test's own: the errors
// are recognised as an outage, and a transaction cut off mid-way gives its pooled connection
// back, so the pool still serves transactions afterwards and disconnecting does not hang.
import { PrivatePostgres } from "@recall/test-support";
import { Client } from "pg";
import { createDb, isDatabaseUnavailable, transaction, type Db } from "./index";

let pg: PrivatePostgres;
let db: Db;

beforeAll(async () => {
  pg = await PrivatePostgres.start();
  // A pool of one: a single leaked connection would stall every later query. No migrations here, so no service role.
  db = createDb({ databaseUrl: pg.url(), poolMax: 1, serviceRole: null, unscoped: "bypass" });
});

afterAll(async () => {
  await db?.$disconnect();
  await pg?.close();
});

async function errorOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
}

test.each(["fast", "immediate"] as const)("a transaction cut off by a %s shutdown releases its connection", async (mode) => {
  const cutOff = transaction(db, async (tx) => {
    await tx.$queryRaw`SELECT 1`;
    await pg.stop(mode);
    await tx.$queryRaw`SELECT 2`;
  });
  expect(isDatabaseUnavailable(await errorOf(() => cutOff))).toBe(true);
  expect(isDatabaseUnavailable(await errorOf(() => db.$queryRaw`SELECT 3`))).toBe(true);

  await pg.start();
  const answers = await Promise.race([
    transaction(db, (tx) => tx.$queryRaw<{ n: number }[]>`SELECT 4 AS n`),
    new Promise((_, reject) => setTimeout(() => reject(new Error("the pool has no connection left")), 10_000)),
  ]);
  expect(answers).toEqual([{ n: 4 }]);
});

test("an error of the query itself is not an outage", async () => {
  const admin = new Client({ connectionString: pg.url() });
  await admin.connect();
  await admin.query("CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY)");
  await admin.end();
  await db.$executeRaw`INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING`;
  const duplicate = await errorOf(() => db.$executeRaw`INSERT INTO t VALUES (1)`);
  expect(isDatabaseUnavailable(duplicate)).toBe(false);
  expect(isDatabaseUnavailable(await errorOf(() => db.$queryRaw`SELECT * FROM no_such_table`))).toBe(false);
  expect(isDatabaseUnavailable(new Error("boom"))).toBe(false);
});
