// Window assembly on real Postgres: a turn joins under the session's lock, and closing a
// window reads its turn list under the same lock, so a turn that joins while the window's
// job is starting is read by that window, never dropped from it.
import { randomUUID } from "node:crypto";
import { createDb, transaction, type Db } from "@recall/db";
import { createTestDatabase, waitFor, type TestDatabase } from "@recall/test-support";
import { closeWindow, lockSession, placeInWindows } from "./window-assembler";

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

test("a batch's turns fill the session's open window, then new ones, in one pass; only the last stays open", async () => {
  const { context, session, turns } = await sessionWithTurns(8);
  const open = await db.extractionWindow.create({ data: { contextId: context.id, sessionId: session.id, turnIds: [turns[0]!.id] } });
  const limits = { maxTurns: 3, maxChars: 1_000, lingerMs: 500 };
  const joining = turns.slice(1).map((t) => ({
    turn: { id: t.id, contextId: context.id, sessionId: session.id, content: t.content, traceId: t.traceId },
    workItemId: randomUUID(),
  }));
  const release = await transaction(db, (tx) => placeInWindows(tx, limits, joining));
  const seqs = (w: { turnIds: string[] }) => w.turnIds.map((id) => turns.findIndex((t) => t.id === id) + 1);
  // In session order (windows made in one transaction may share a creation time).
  const windows = (await db.extractionWindow.findMany({ where: { sessionId: session.id } })).sort((a, b) => seqs(a)[0]! - seqs(b)[0]!);
  expect(windows.map((w) => [seqs(w), w.closedAt !== null])).toEqual([
    [[1, 2, 3], true],
    [[4, 5, 6], true],
    [[7, 8], false],
  ]);
  // The open window closed full (its held-back job runs now); of the two opened, one is full and one lingers.
  expect(release.promote.map((i) => i.subjectId)).toEqual([open.id]);
  expect(release.opened.map((o) => [o.item.subjectId, o.full])).toEqual([
    [windows[1]!.id, true],
    [windows[2]!.id, false],
  ]);
  expect(release.joined).toBeUndefined();
});

test("a turn that does not fit the open window's characters closes it and opens the next", async () => {
  const { context, session, turns } = await sessionWithTurns(3);
  await db.extractionWindow.create({ data: { contextId: context.id, sessionId: session.id, turnIds: [turns[0]!.id] } });
  // "turn 1" is 6 characters: with 12 allowed, turn 2 fits and turn 3 does not.
  const limits = { maxTurns: 10, maxChars: 12, lingerMs: 500 };
  const joining = turns.slice(1).map((t) => ({
    turn: { id: t.id, contextId: context.id, sessionId: session.id, content: t.content, traceId: t.traceId },
    workItemId: randomUUID(),
  }));
  const release = await transaction(db, (tx) => placeInWindows(tx, limits, joining));
  const windows = (await db.extractionWindow.findMany({ where: { sessionId: session.id } })).sort(
    (a, b) => b.turnIds.length - a.turnIds.length,
  );
  expect(windows.map((w) => [w.turnIds.length, w.closedAt !== null])).toEqual([
    [2, true],
    [1, false],
  ]);
  expect([release.promote.length, release.opened.map((o) => o.full)]).toEqual([1, [false]]);
});
