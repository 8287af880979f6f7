// Window assembly on real Postgres: a turn joins under the session's lock, and closing a
// window reads its turn list under the same lock, so a turn that joins while the window's
// job is starting is read by that window, never dropped from it.
import { randomUUID } from "node:crypto";
import { createDb, transaction, type Db } from "@recall/db";
import { createTestDatabase, waitFor, type TestDatabase } from "@recall/test-support";
import { closeWindow, lockSession } from "./window-assembler";

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb({ databaseUrl: database.url, unscoped: "bypass" });
});

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

/** Connections of this test's database waiting for an advisory lock. */
async function advisoryWaiters(): Promise<number> {
  const [row] = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_locks
    WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
  return row!.n;
}

async function sessionWithTurns(count: number) {
  const context = await db.context.create({ data: { name: "windows" } });
  const session = await db.session.create({ data: { contextId: context.id } });
  const turns = [];
  for (let seq = 1; seq <= count; seq++) {
    turns.push(
      await db.turn.create({
        data: { contextId: context.id, sessionId: session.id, seq, role: "user", content: `turn ${seq}`, traceId: randomUUID() },
      }),
    );
  }
  return { context, session, turns };
}

test("a turn that joins while the window is being closed is among the window's turns", async () => {
  const { context, session, turns } = await sessionWithTurns(3);
  const window = await db.extractionWindow.create({
    data: { contextId: context.id, sessionId: session.id, turnIds: [turns[0]!.id, turns[1]!.id] },
  });
  let closing: ReturnType<typeof closeWindow> | undefined;
  // A join holds the session's lock, adds turn 3 and, before it commits, the window's job starts closing.
  await transaction(db, async (tx) => {
    await lockSession(tx, session.id);
    await tx.extractionWindow.update({ where: { id: window.id }, data: { turnIds: { push: turns[2]!.id } } });
    closing = closeWindow(db, window.id);
    // Commit only once the close waits for the session's lock, so the race this test is about always happens.
    await waitFor(async () => (await advisoryWaiters()) > 0, { what: "the close to wait for the session's lock" });
  });
  const closed = await closing!;
  expect(closed.turns.map((t) => t.seq)).toEqual([1, 2, 3]);
  const stored = await db.extractionWindow.findUniqueOrThrow({ where: { id: window.id } });
  expect(stored.turnIds).toEqual(turns.map((t) => t.id));
  expect(stored.closedAt).not.toBeNull();
});

test("closing keeps session order whatever order the turns joined in", async () => {
  const { context, session, turns } = await sessionWithTurns(3);
  const window = await db.extractionWindow.create({
    data: { contextId: context.id, sessionId: session.id, turnIds: [turns[2]!.id, turns[0]!.id, turns[1]!.id] },
  });
  const closed = await closeWindow(db, window.id);
  expect(closed.turns.map((t) => t.seq)).toEqual([1, 2, 3]);
  expect(closed.window.turnIds).toEqual(turns.map((t) => t.id));
});
