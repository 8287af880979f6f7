// The work-item transitions on real Postgres: what a claim returns and refuses, what a finish
// records and chains, and the races between them (two claims of one item, a late failure after
// a success, a second success, a claim of a cancelled item).
import { randomUUID } from "node:crypto";
import { AbandonedAttemptError } from "../errors";
import { createLogger } from "@recall/telemetry";
import { attemptsOf, db, logger, newItem, useQueueTestEnv } from "../testing/queue-test-env";
import {
  cancelWorkItem,
  claimGroupTurns,
  claimWorkItem,
  ensureWorkItem,
  failWorkItem,
  finishInTransaction,
  finishManyInTransaction,
  finishWorkItem,
  handBackWorkItem,
  leaveGroup,
  releaseGroupTurns,
  resetToQueued,
  successorOf,
  groupOf,
  finishGroupTurns,
  type ClaimOutcome,
  type Finished,
  type GroupTurnRun,
  type Success,
} from ".";
import { transaction, type Tx, type WorkItem } from "@recall/db";

useQueueTestEnv();

const TRACE = "c".repeat(32);

function claimed<I>(outcome: ClaimOutcome<I>) {
  if (!outcome?.claimed) throw new Error(`not claimed: ${JSON.stringify(outcome)}`);
  return outcome;
}

const item = (id: string) => db.workItem.findUniqueOrThrow({ where: { id } });

/** A turn of a context with config, its extraction item, and the plan recorded for it. */
async function turnWithItem() {
  const context = await db.context.create({ data: { name: "claims", config: { max_tokens: 1_000 } } });
  const session = await db.session.create({ data: { contextId: context.id } });
  const turn = await db.turn.create({
    data: {
      contextId: context.id,
      sessionId: session.id,
      seq: 1,
      role: "user",
      content: "I moved to Lisbon.",
      traceId: TRACE,
      scopeSetId: (await db.$queryRaw<{ id: bigint }[]>`SELECT recall_scope_set(${context.id}::uuid, ARRAY['user=a']) AS id`)[0]!.id,
    },
  });
  await db.extractionPlan.create({
    data: { contextId: context.id, subjectType: "turn", subjectId: turn.id, skillId: "personal", skillSource: "default" },
  });
  const work = await ensureWorkItem(db, {
    contextId: context.id,
    queue: "extract_assertions",
    subjectType: "turn",
    subjectId: turn.id,
    traceId: TRACE,
  });
  return { context, turn, work };
}

test("a claim marks the item running, opens attempt 1 and returns it with its context's config, its subject and its plan", async () => {
  const { turn, work } = await turnWithItem();
  const claim = claimed(await claimWorkItem(db, { workItemId: work.id, traceId: null }));

  expect(claim.item).toMatchObject({ id: work.id, status: "running", attempts: 1, finishedAt: null });
  expect(claim.item.startedAt).toBeInstanceOf(Date);
  expect(claim.contextConfig).toEqual({ max_tokens: 1_000 });
  expect(claim.subject.turn).toMatchObject({
    id: turn.id,
    content: "I moved to Lisbon.",
    role: "user",
    scope: ["user=a"],
    occurredAt: null,
  });
  expect(claim.subject.turn!.createdAt).toEqual(turn.createdAt);
  expect(claim.subject.document).toBeNull();
  expect(claim.plan).toMatchObject({ skillId: "personal", skillSource: "default" });
  const [attempt] = await attemptsOf(work.id);
  expect(attempt).toMatchObject({ id: claim.attemptId, attempt: 1, status: "running", traceId: TRACE });
});

test("a stage's own reads share the claim's transaction and come back with it", async () => {
  const { turn, work } = await turnWithItem();
  const claim = claimed(
    await claimWorkItem(db, { workItemId: work.id, traceId: TRACE }, (tx, c) => tx.turn.count({ where: { id: c.item.subjectId } })),
  );
  expect(claim.input).toBe(1);
  expect(claim.subject.turn!.id).toBe(turn.id);
});

test.each(["succeeded", "waiting", "cancelled"] as const)("a %s item is not claimed, and nothing of it changes", async (status) => {
  const work = await newItem("validate_artifacts");
  await db.workItem.update({ where: { id: work.id }, data: { status, attempts: 2 } });

  expect(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE })).toEqual({ claimed: false, status });
  expect(await item(work.id)).toMatchObject({ status, attempts: 2, startedAt: null });
  expect(await attemptsOf(work.id)).toEqual([]);
});

test("a claim of an item that does not exist answers nothing", async () => {
  expect(await claimWorkItem(db, { workItemId: randomUUID(), traceId: TRACE })).toBeUndefined();
});

test("an item cancelled before a worker claims it stays cancelled", async () => {
  const work = await newItem("commit_artifacts");
  expect(await cancelWorkItem(db, work.id, ["queued", "failed", "dead"])).toMatchObject({ status: "cancelled" });
  expect(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE })).toEqual({ claimed: false, status: "cancelled" });
  // Nor may a running item be cancelled: its worker records the outcome.
  const running = await newItem("commit_artifacts");
  claimed(await claimWorkItem(db, { workItemId: running.id, traceId: TRACE }));
  expect(await cancelWorkItem(db, running.id, ["queued", "failed", "dead"])).toBeUndefined();
});

test("two claims of one item at once: one after the other, the later counts the next attempt and closes the earlier as interrupted", async () => {
  const work = await newItem("extract_assertions");
  const both = await Promise.all([1, 2].map(() => claimWorkItem(db, { workItemId: work.id, traceId: TRACE })));

  expect(both.map((c) => claimed(c).item.attempts).sort()).toEqual([1, 2]);
  expect(await item(work.id)).toMatchObject({ status: "running", attempts: 2 });
  const attempts = await attemptsOf(work.id);
  expect(attempts.map((a) => [a.attempt, a.status, a.errorClass])).toEqual([
    [1, "failed", "abandoned"],
    [2, "running", null],
  ]);
  expect(attempts[0]!.errorMessage).toMatch(/^abandoned: attempt 2 started while this one was open/);
});

test("a finish records the success and creates the next stage's item, background if this one was", async () => {
  const work = await ensureWorkItem(db, {
    contextId: randomUUID(),
    queue: "extract_assertions",
    subjectType: "turn",
    subjectId: randomUUID(),
    traceId: TRACE,
    background: true,
  });
  const claim = claimed(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE }));
  const finished = await finishWorkItem(db, {
    workItemId: work.id,
    attemptId: claim.attemptId,
    tokensUsed: 7,
    wallMs: 12,
    result: { value: { outcomes: [] }, replace: true },
    next: successorOf(claim.item, "validate_artifacts"),
  });

  expect(finished.first).toBe(true);
  expect(finished.next).toMatchObject({ rerun: false, item: { queue: "validate_artifacts", status: "queued", subjectId: work.subjectId } });
  expect(finished.next!.item.payload).toEqual({ background: true });
  expect(await item(work.id)).toMatchObject({ status: "succeeded", tokensUsed: 7, wallMsUsed: 12, payload: { outcomes: [] } });
  expect((await attemptsOf(work.id)).map((a) => [a.status, a.tokensUsed, a.wallMs])).toEqual([["succeeded", 7, 12]]);
});

test("a stage's writes count in its run, not in its successor's wait: both are stamped when the writes are done", async () => {
  const work = await newItem("commit_artifacts");
  const claim = claimed(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE }));
  const finished = await finishWorkItem(
    db,
    { workItemId: work.id, attemptId: claim.attemptId, wallMs: 1, next: successorOf(claim.item, "truth_maintenance") },
    async (tx) => void (await tx.$executeRaw`SELECT pg_sleep(0.2)`),
  );
  const [done, next] = [await item(work.id), await item(finished.next!.item.id)];
  // The writes took 200 ms: they are inside the item's run, and the successor appeared after them.
  expect(done.finishedAt!.getTime() - done.startedAt!.getTime()).toBeGreaterThanOrEqual(200);
  expect(next.createdAt.getTime()).toBeGreaterThanOrEqual(done.startedAt!.getTime() + 200);
});

test("a second success, or a late failure, after the first: the success stands, nothing is chained again, what they spent is counted", async () => {
  const work = await newItem("validate_artifacts");
  const first = claimed(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE }));
  const second = claimed(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE }));
  const third = claimed(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE }));
  const next = successorOf(first.item, "commit_artifacts");
  const writes: string[] = [];

  const won = await finishWorkItem(db, { workItemId: work.id, attemptId: second.attemptId, wallMs: 1, tokensUsed: 1, next }, async () => {
    writes.push("second");
  });
  const lost = await finishWorkItem(db, { workItemId: work.id, attemptId: first.attemptId, wallMs: 1, tokensUsed: 2, next }, async () => {
    writes.push("first");
  });
  const late = await failWorkItem(db, {
    workItemId: work.id,
    attemptId: third.attemptId,
    status: "dead",
    errorClass: "provider",
    errorMessage: "late failure",
    tokensUsed: 4,
    wallMs: 1,
  });

  expect([won.first, lost.first, late]).toEqual([true, false, false]);
  expect(won.next?.item.queue).toBe("commit_artifacts");
  expect(lost.next).toBeUndefined();
  expect(writes).toEqual(["second"]);
  expect(await item(work.id)).toMatchObject({ status: "succeeded", errorClass: null, tokensUsed: 7 });
  expect(await db.workItem.count({ where: { subjectId: work.subjectId, queue: "commit_artifacts" } })).toBe(1);
  expect((await attemptsOf(work.id)).map((a) => a.status)).toEqual(["succeeded", "succeeded", "dead"]);
});

test("a stage's writes that fail roll its success back: the item is still running and no next item exists", async () => {
  const work = await newItem("extract_assertions");
  const claim = claimed(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE }));
  const next = successorOf(claim.item, "validate_artifacts");

  await expect(
    finishWorkItem(db, { workItemId: work.id, attemptId: claim.attemptId, wallMs: 1, next }, async () => {
      throw new Error("constraint violated");
    }),
  ).rejects.toThrow("constraint violated");
  expect(await item(work.id)).toMatchObject({ status: "running", finishedAt: null });
  expect(await db.workItem.count({ where: { subjectId: work.subjectId, queue: "validate_artifacts" } })).toBe(0);
  expect((await attemptsOf(work.id)).map((a) => a.status)).toEqual(["running"]);
});

test("a finish that finds the next stage finished before resets it to run again (an operator re-extracted)", async () => {
  const work = await newItem("extract_assertions");
  const next = successorOf(work, "validate_artifacts");
  const old = await ensureWorkItem(db, next);
  await db.workItem.update({
    where: { id: old.id },
    data: { status: "dead", errorClass: "validation", errorMessage: "old", finishedAt: new Date() },
  });
  const claim = claimed(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE }));

  const finished = await finishWorkItem(db, { workItemId: work.id, attemptId: claim.attemptId, wallMs: 1, next });
  expect(finished.next).toMatchObject({
    rerun: true,
    item: { id: old.id, status: "queued", errorClass: null, errorMessage: null, finishedAt: null },
  });
});

test("attempts count across operator retries and hand-backs", async () => {
  const work = await newItem("commit_artifacts");
  const first = claimed(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE }));
  await handBackWorkItem(db, { workItemId: work.id, attemptId: first.attemptId }, new AbandonedAttemptError("shutting down"), 5);
  expect(await item(work.id)).toMatchObject({ status: "queued", attempts: 1, errorClass: "abandoned" });
  const second = claimed(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE }));
  await failWorkItem(db, {
    workItemId: work.id,
    attemptId: second.attemptId,
    status: "dead",
    errorClass: "internal",
    errorMessage: "boom",
    wallMs: 1,
  });
  expect(await resetToQueued(db, work.id, "failed")).toBeUndefined();
  expect(await resetToQueued(db, work.id, "dead")).toMatchObject({ status: "queued", errorClass: null });
  const third = claimed(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE }));

  expect(third.item.attempts).toBe(3);
  expect((await attemptsOf(work.id)).map((a) => [a.attempt, a.status])).toEqual([
    [1, "failed"],
    [2, "dead"],
    [3, "running"],
  ]);
});

test("a next stage with nothing to do is created finished, with its result", async () => {
  const work = await newItem("commit_artifacts");
  const claim = claimed(await claimWorkItem(db, { workItemId: work.id, traceId: TRACE }));
  const finished = await finishWorkItem(db, {
    workItemId: work.id,
    attemptId: claim.attemptId,
    wallMs: 1,
    next: successorOf(claim.item, "truth_maintenance"),
    nextDone: { value: { truth_maintained_at: "2026-12-03T00:00:00.000Z" } },
  });
  expect(finished.next?.item).toMatchObject({
    queue: "truth_maintenance",
    status: "succeeded",
    attempts: 0,
    payload: { truth_maintained_at: "2026-12-03T00:00:00.000Z" },
  });
  expect(finished.next!.item.finishedAt).toBeInstanceOf(Date);
});

/** A window of three turns of one session, each turn's validate_artifacts item waiting for it. */
async function windowOfThree() {
  const context = await db.context.create({ data: { name: "window stages" } });
  const session = await db.session.create({ data: { contextId: context.id } });
  const turns = [];
  for (const seq of [1, 2, 3]) {
    turns.push(
      await db.turn.create({
        data: { contextId: context.id, sessionId: session.id, seq, role: "user", content: `turn ${seq}`, traceId: TRACE },
      }),
    );
  }
  const window = await db.extractionWindow.create({
    data: { contextId: context.id, sessionId: session.id, turnIds: [turns[2]!.id, turns[0]!.id, turns[1]!.id] },
  });
  const items = [];
  for (const turn of turns) {
    items.push(
      await ensureWorkItem(db, {
        contextId: context.id,
        queue: "validate_artifacts",
        subjectType: "turn",
        subjectId: turn.id,
        traceId: TRACE,
        waiting: true,
        payload: { window_id: window.id },
      }),
    );
  }
  return { window, turns, items };
}

test("a window's job claims its turns' waiting items at once, in session order, and none of another window's", async () => {
  const { window, turns, items } = await windowOfThree();
  const other = await windowOfThree();
  await db.workItem.update({ where: { id: items[1]!.id }, data: { status: "succeeded" } });

  const claims = await db.$transaction((tx) => claimGroupTurns(tx, "validate_artifacts", { kind: "window", id: window.id }, TRACE));
  expect(claims.map((c) => [c.turn.id, c.item.status, c.item.attempts])).toEqual([
    [turns[0]!.id, "running", 1],
    [turns[2]!.id, "running", 1],
  ]);
  expect((await attemptsOf(items[0]!.id)).map((a) => [a.id, a.status])).toEqual([[claims[0]!.attemptId, "running"]]);
  expect((await item(other.items[0]!.id)).status).toBe("waiting");

  // The window's job runs again (its worker died): the same turns, the next attempt, the interrupted one closed.
  const again = await db.$transaction((tx) => claimGroupTurns(tx, "validate_artifacts", { kind: "window", id: window.id }, TRACE));
  expect(again.map((c) => c.item.attempts)).toEqual([2, 2]);
  expect((await attemptsOf(items[0]!.id)).map((a) => [a.status, a.errorClass])).toEqual([
    ["failed", "abandoned"],
    ["running", null],
  ]);
});

test("a turn that leaves its window, and the turns of a window that gave up, are queued to run alone", async () => {
  const { window, items } = await windowOfThree();
  const [first] = await db.$transaction((tx) => claimGroupTurns(tx, "validate_artifacts", { kind: "window", id: window.id }, TRACE));
  const left = await leaveGroup(db, "window", first!, { errorClass: "internal", message: "window: boom" });
  expect(left).toMatchObject({ status: "queued", errorClass: "internal", payload: {} });

  const released = await releaseGroupTurns(db, "validate_artifacts", { kind: "window", id: window.id }, "window: gave up");
  expect(released.map((i) => i.id).sort()).toEqual([items[1]!.id, items[2]!.id].sort());
  expect(released.every((i) => i.status === "queued" && groupOf(i) === undefined)).toBe(true);
  expect((await attemptsOf(first!.item.id)).map((a) => [a.status, a.errorMessage])).toEqual([["failed", "window: boom"]]);
});

test("a group's turns are finished together; when one fails, each is finished alone and the failing ones leave the group", async () => {
  const { window, turns } = await windowOfThree();
  const group = { kind: "window", id: window.id } as const;
  const claims = await db.$transaction((tx) => claimGroupTurns(tx, "validate_artifacts", group, TRACE));
  // Each write marks its turn; the second turn's write fails, the third turn's stage failed before it.
  const mark = (turnId: string) => async (tx: Tx) => {
    await tx.turn.update({ where: { id: turnId }, data: { speaker: "written" } });
  };
  const runs: GroupTurnRun[] = [
    { claim: claims[0]!, wallMs: 5, tokensUsed: 3, output: { value: { checked: 1 } }, write: mark(claims[0]!.turn.id) },
    {
      claim: claims[1]!,
      wallMs: 5,
      write: async (tx) => {
        await mark(claims[1]!.turn.id)(tx);
        throw new Error("constraint broke");
      },
    },
    { claim: claims[2]!, wallMs: 5, error: new Error("stage broke") },
  ];
  const left = await transaction(db, (tx) => finishGroupTurns(tx, { queue: "validate_artifacts", ref: group, turns: runs }, logger));

  expect(left.map((i) => i.id).sort()).toEqual([claims[1]!.item.id, claims[2]!.item.id].sort());
  expect(left.every((i) => i.status === "queued" && groupOf(i) === undefined)).toBe(true);
  expect(await item(claims[0]!.item.id)).toMatchObject({
    status: "succeeded",
    payload: { window_id: window.id, checked: 1 },
    tokensUsed: 3,
  });
  const next = await db.workItem.findFirstOrThrow({ where: { queue: "commit_artifacts", subjectId: claims[0]!.turn.id } });
  expect(next).toMatchObject({ status: "waiting", payload: { window_id: window.id } });
  expect(
    await db.workItem.count({ where: { queue: "commit_artifacts", subjectId: { in: [claims[1]!.turn.id, claims[2]!.turn.id] } } }),
  ).toBe(0);
  // Only the write of the turn that succeeded stands.
  const speakers = await db.turn.findMany({ where: { id: { in: turns.map((t) => t.id) } }, select: { id: true, speaker: true } });
  expect(speakers.filter((t) => t.speaker === "written").map((t) => t.id)).toEqual([claims[0]!.turn.id]);
  expect((await attemptsOf(claims[2]!.item.id)).map((a) => [a.status, a.errorMessage])).toEqual([["failed", "window: stage broke"]]);
});

test("a group's writes together that fail are logged with the group and its error, then each turn is written alone", async () => {
  const { window, turns } = await windowOfThree();
  const group = { kind: "window", id: window.id } as const;
  const claims = await db.$transaction((tx) => claimGroupTurns(tx, "validate_artifacts", group, TRACE));
  const lines: string[] = [];
  const heard = createLogger("warn", "test", { destination: { write: (line: string) => void lines.push(line) } });
  // Every turn's stage succeeded; the last turn's write fails, together and alone.
  const runs: GroupTurnRun[] = claims.map((claim, i) => ({
    claim,
    wallMs: 1,
    next: false,
    write: async (tx) => {
      if (i === 2) throw new Error("constraint broke");
      await tx.turn.update({ where: { id: claim.turn.id }, data: { speaker: "written" } });
    },
  }));
  const left = await transaction(db, (tx) => finishGroupTurns(tx, { queue: "validate_artifacts", ref: group, turns: runs }, heard));

  expect(lines.map((line) => JSON.parse(line))).toEqual([
    expect.objectContaining({ level: 40, groupKind: "window", groupId: window.id, err: "constraint broke" }),
  ]);
  expect(left.map((i) => i.id)).toEqual([claims[2]!.item.id]);
  expect(await db.turn.count({ where: { id: { in: turns.map((t) => t.id) }, speaker: "written" } })).toBe(2);
});

test("a group's turns that all succeed are finished in one savepoint, with what their writes share", async () => {
  const { window, turns } = await windowOfThree();
  const group = { kind: "window", id: window.id } as const;
  const claims = await db.$transaction((tx) => claimGroupTurns(tx, "validate_artifacts", group, TRACE));
  const shared: unknown[] = [];
  const runs: GroupTurnRun[] = claims.map((claim) => ({
    claim,
    wallMs: 1,
    next: false,
    write: async (tx, prepared) => {
      shared.push(prepared);
      await tx.turn.update({ where: { id: claim.turn.id }, data: { speaker: "written" } });
    },
  }));
  const completed: unknown[] = [];
  const left = await transaction(db, (tx) =>
    finishGroupTurns(
      tx,
      {
        queue: "validate_artifacts",
        ref: group,
        turns: runs,
        prepare: async () => "locks taken",
        complete: async (_tx, prepared) => void completed.push(prepared),
      },
      logger,
    ),
  );
  expect(left).toEqual([]);
  expect(shared).toEqual(["locks taken", "locks taken", "locks taken"]);
  // Once every turn wrote into what they share: its rows written once.
  expect(completed).toEqual(["locks taken"]);
  const rows = await db.workItem.findMany({ where: { id: { in: claims.map((c) => c.item.id) } } });
  expect(rows.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
  expect(await db.workItem.count({ where: { queue: "commit_artifacts", subjectId: { in: turns.map((t) => t.id) } } })).toBe(0);
  expect(await db.turn.count({ where: { id: { in: turns.map((t) => t.id) }, speaker: "written" } })).toBe(3);
});

/**
 * Six commits of a group's turns, each a case of the finish: a next item waiting for the group, one created done, none,
 * one found dead before (reset), one found queued (kept), and a run that lost to an earlier success.
 */
async function sixFinishes(finish: (tx: Tx, successes: Success[]) => Promise<Map<string, Finished>>) {
  const works = await Promise.all(Array.from({ length: 6 }, () => newItem("commit_artifacts")));
  await db.workItem.updateMany({ where: { id: { in: works.map((w) => w.id) } }, data: { payload: { before: true } } });
  const nexts = works.map((w) => ({ ...successorOf(w, "truth_maintenance"), waiting: true, payload: { window_id: "w1" } }));
  for (const [i, status] of [
    [3, "dead"],
    [4, "queued"],
  ] as const) {
    const old = await ensureWorkItem(db, nexts[i]!);
    await db.workItem.update({ where: { id: old.id }, data: { status, payload: { old: true }, errorMessage: "old" } });
  }
  const claims = [];
  for (const w of works) claims.push(claimed(await claimWorkItem(db, { workItemId: w.id, traceId: TRACE })));
  // The sixth item's later run succeeded first: this one only adds what it spent.
  const later = claimed(await claimWorkItem(db, { workItemId: works[5]!.id, traceId: TRACE }));
  await finishWorkItem(db, { workItemId: works[5]!.id, attemptId: later.attemptId, wallMs: 1, tokensUsed: 5, next: nexts[5] });
  const successes: Success[] = claims.map((c, i) => ({
    workItemId: c.item.id,
    attemptId: c.attemptId,
    tokensUsed: i + 1,
    wallMs: 10 + i,
    result: i % 2 === 0 ? { value: { committed: i } } : { value: { replaced: i }, replace: true },
    next: i === 2 ? undefined : nexts[i],
    nextDone: i === 1 ? { value: { truth_maintained_at: "2026-12-06T00:00:00.000Z" } } : undefined,
    // The rules' sure part of an input with no model: finished awaiting one, its successor chained all the same.
    status: i === 0 ? ("awaiting_model" as const) : undefined,
  }));
  const answers = await transaction(db, (tx) => finish(tx, successes));
  const shown = async (id: string | undefined) => {
    const row = id ? await db.workItem.findUnique({ where: { id } }) : null;
    return row && { ...pick(row), finished: row.finishedAt !== null };
  };
  const pick = (w: WorkItem) => ({
    status: w.status,
    payload: w.payload,
    tokens: w.tokensUsed,
    wall: w.wallMsUsed,
    error: w.errorMessage,
    trace: w.traceId,
  });
  const answered = (id: string) => {
    const a = answers.get(id);
    return a && { first: a.first, next: a.next && { rerun: a.next.rerun, created: a.next.created, status: a.next.item.status } };
  };
  return Promise.all(
    works.map(async (w, i) => ({
      answer: answered(w.id),
      item: await shown(w.id),
      attempts: (await attemptsOf(w.id)).map((a) => [a.status, a.tokensUsed, a.wallMs]),
      next: await shown(
        (await db.workItem.findFirst({ where: { queue: "truth_maintenance", subjectId: nexts[i]!.subjectId }, select: { id: true } }))?.id,
      ),
    })),
  );
}

test("a group's turns finished in one statement end as each finished alone would: items, attempts and next items", async () => {
  const alone = await sixFinishes(async (tx, successes) => {
    const answers = new Map<string, Finished>();
    for (const s of successes) answers.set(s.workItemId, await finishInTransaction(tx, s));
    return answers;
  });
  const many = await sixFinishes(finishManyInTransaction);
  expect(many).toEqual(alone);
  expect(many.map((m) => m.next?.status ?? null)).toEqual(["waiting", "succeeded", null, "waiting", "queued", "waiting"]);
  expect(many.map((m) => m.item?.status)).toEqual(["awaiting_model", "succeeded", "succeeded", "succeeded", "succeeded", "succeeded"]);
  expect(many.map((m) => m.answer)).toEqual([
    { first: true, next: { rerun: false, created: true, status: "waiting" } },
    { first: true, next: { rerun: false, created: true, status: "succeeded" } },
    { first: true, next: undefined },
    { first: true, next: { rerun: true, created: false, status: "waiting" } },
    { first: true, next: { rerun: false, created: false, status: "queued" } },
    { first: false, next: undefined },
  ]);
  expect(many[3]!.next).toMatchObject({ payload: { old: true }, error: null });
});
