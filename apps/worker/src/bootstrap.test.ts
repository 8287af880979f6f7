// A worker started while Postgres is down waits for it instead of exiting (the soak restarts killed workers during
// Postgres outages); other errors still end the start at once.
import { createDb } from "@recall/db";
import { createLogger } from "@recall/telemetry";
import { whenReachable } from "./bootstrap";

const logger = createLogger("silent", "recall-worker");

/** A real "can't reach database server" error: a pool aimed at a port nothing listens on. */
async function unreachable(): Promise<never> {
  const db = createDb({ databaseUrl: "postgresql://postgres@127.0.0.1:1/none", poolMax: 1, serviceRole: null });
  try {
    await db.$queryRaw`SELECT 1`;
    throw new Error("port 1 answered");
  } finally {
    await db.$disconnect();
  }
}

test("an unreachable database is tried again until it answers", async () => {
  let tries = 0;
  const answer = await whenReachable(async () => (++tries < 3 ? unreachable() : "claimed"), logger, 10_000);
  expect({ answer, tries }).toEqual({ answer: "claimed", tries: 3 });
});

test("an outage longer than the bound ends the start with the database's error", async () => {
  await expect(whenReachable(unreachable, logger, 300)).rejects.toThrow(/reach database server/i);
});

test("any other error ends the start at once", async () => {
  let tries = 0;
  const refused = whenReachable(async () => {
    tries++;
    throw new Error("queue prefix {x} belongs to another database");
  }, logger);
  await expect(refused).rejects.toThrow(/another database/);
  expect(tries).toBe(1);
});
