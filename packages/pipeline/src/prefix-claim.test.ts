// The queue prefix claim on real Redis and Postgres: the first database to start on a prefix
// holds it, the same database starting again finds it its own, and another database is refused
// with a message naming QUEUE_PREFIX.
import { createDb } from "@recall/db";
import { createTestDatabase } from "@recall/test-support";
import { PrefixClaimedError, claimKey, claimQueuePrefix, claimQueuePrefixFor, databaseIdentity } from "./prefix-claim";
import { connection, db, prefix, useQueueTestEnv } from "./testing/queue-test-env";

useQueueTestEnv();

test("a database's identity names its cluster and itself, so two databases of one server differ", async () => {
  const other = await createTestDatabase();
  const otherDb = createDb({ databaseUrl: other.url, poolMax: 1, unscoped: "bypass" });
  try {
    const [mine, theirs] = await Promise.all([databaseIdentity(db), databaseIdentity(otherDb)]);
    expect(mine).toMatch(/^postgres:\d+\/.+/);
    expect(theirs).not.toBe(mine);
    expect(theirs.split("/")[0]).toBe(mine.split("/")[0]);
  } finally {
    await otherDb.$disconnect();
    await other.drop();
  }
});

test("the first database claims the prefix, starts again on it, and another database is refused", async () => {
  const redis = connection;
  const first = await claimQueuePrefixFor({ db, redis, prefix });
  // Under the prefix, in its hash tag: a cluster keeps the claim in the queues' own slot.
  expect(first).toMatchObject({ key: `${prefix}:owner`, created: true });
  expect(await redis.get(claimKey(prefix))).toBe(first.database);
  expect(await claimQueuePrefixFor({ db, redis, prefix })).toMatchObject({ created: false, database: first.database });

  const refused = claimQueuePrefix(redis, prefix, "postgres:1/another");
  await expect(refused).rejects.toThrow(PrefixClaimedError);
  await expect(refused).rejects.toThrow(`QUEUE_PREFIX ${prefix} is claimed in this Redis by another database (${first.database})`);
  expect(await redis.get(claimKey(prefix))).toBe(first.database);
  // Another prefix on the same Redis is free for it.
  expect(await claimQueuePrefix(redis, `${prefix.slice(0, -1)}-b}`, "postgres:1/another")).toMatchObject({ created: true });
  await redis.del(`${prefix.slice(0, -1)}-b}:owner`);
});
