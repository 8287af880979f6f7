// Asynchronous and bulk turns end to end: wait: false, the batch route and its status, windowed
// extraction (one model call per window, each item attributed to and quoted from its own turn),
// a window whose answer fails validation being split, and a failed window's turns retried one by one.
// Real Postgres, Redis, workers and the OpenAI SDK against the local wire-protocol server.
import { jobIdFor } from "@recall/pipeline";
import { startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";

let h: Harness;
let llm: FakeLlmServer;
let api: ContextClient;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({
    RECALL_FAST_MODEL: "openai-compatible:test-fast",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    RECALL_WINDOW_MAX_TURNS: "3",
    // Long enough that a window only closes by filling up: which turns share a call is then fixed.
    RECALL_WINDOW_LINGER_MS: "4000",
  });
  api = contextClient(h.app, await createContext(h.app, "bulk"));
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
});

const VIOLIN = "Melanie told me her daughter started violin lessons with a teacher from Vienna last spring.";
const BRIDGE = "The bridge project in Porto was delayed because the steel supplier went bankrupt.";
const ZEPHYR = "Our quarterly review moved the Zephyr launch to October after the audit found gaps.";
const ALICE = "I'm Alice, CTO at Acme.";

const EMPTY = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
const fact = (turn: number, entity: string, key: string, value: string, evidence: string) => ({
  turn,
  entity,
  key,
  value,
  memory_category: "knowledge",
  evidence,
  confidence: 0.9,
  significance: "medium",
  valid_from: null,
  valid_to: null,
});

const chatCalls = () => llm.requests.filter((r) => r.route === "openai").length;
const turnsOf = (...contents: string[]) => contents.map((content) => ({ role: "user", content, scope: ["org=acme"] }));

async function importBatch(contents: string[]) {
  const session = await api.session();
  const res = await api.post(`/sessions/${session}/turns/batch`, { turns: turnsOf(...contents) });
  expect(res.status).toBe(202);
  return { session, ...(res.body as { batch_id: string; turn_ids: string[]; status_url: string }) };
}

async function batchDone(statusUrl: string, until: (b: BatchBody) => boolean = (b) => b.state === "done") {
  return waitFor(
    async () => {
      const res = await api.get(statusUrl.replace(/^\/api\/v1\/[^/]+/, ""));
      return until(res.body as BatchBody) ? (res.body as BatchBody) : undefined;
    },
    { what: "the batch", timeoutMs: 90_000 },
  );
}

interface BatchBody {
  state: string;
  counts: Record<string, number>;
  failures: { turn_id: string; work_item_id: string; error_class: string }[];
}

test("wait: false answers 202 at once with a status URL that later shows the committed diff", async () => {
  const session = await api.session();
  const res = await api.post(`/sessions/${session}/turns`, { role: "user", content: ALICE, scope: ["org=acme"], wait: false });
  expect(res.status).toBe(202);
  expect(res.body.extraction).toEqual({ status: "pending" });
  const statusPath = (res.body.status_url as string).replace(/^\/api\/v1\/[^/]+/, "");
  const done = await waitFor(async () => {
    const s = await api.get(statusPath);
    return s.body.extraction.status === "committed" ? s.body : undefined;
  });
  expect(done.turn_id).toBe(res.body.turn_id);
  expect(done.diff.attributes).toEqual([expect.objectContaining({ entity: "Alice", key: "role", value: "CTO" })]);
});

test("a batch: heuristics finish their turn alone, the rest share one model call, each fact quoted from its own turn", async () => {
  const before = chatCalls();
  llm.script({
    json: {
      ...EMPTY,
      attributes: [
        fact(0, "Melanie's daughter", "activity", "violin lessons", "her daughter started violin lessons"),
        // Named turn 1 (the bridge) but quoted from turn 0: invalid, exactly as a wrong quote of one turn is.
        fact(1, "Porto bridge", "hobby", "violin", "violin lessons"),
        fact(2, "Zephyr launch", "scheduled_for", "October", "moved the Zephyr launch to October"),
      ],
    },
  });
  const batch = await importBatch([VIOLIN, ALICE, BRIDGE, ZEPHYR]);
  const status = await batchDone(batch.status_url);
  expect(status.counts).toEqual({ queued: 0, processing: 0, committed: 4, failed: 0, cancelled: 0, awaiting_model: 0 });
  expect(chatCalls() - before).toBe(1);
  const [violin, alice, bridge, zephyr] = batch.turn_ids as [string, string, string, string];
  const candidates = await h.api.db.knowledgeCandidate.findMany({ where: { turnId: { in: batch.turn_ids }, kind: "attribute" } });
  const on = (turnId: string) =>
    candidates.filter((c) => c.turnId === turnId).map((c) => [(c.payload as { key: string }).key, c.status, c.stage]);
  expect(on(violin)).toEqual([["activity", "committed", "fast"]]);
  expect(on(bridge)).toEqual([["hobby", "invalid", "fast"]]);
  expect(on(zephyr)).toEqual([["scheduled_for", "committed", "fast"]]);
  expect(on(alice)).toEqual([["role", "committed", "heuristic"]]);
  const assertion = await h.api.db.assertion.findFirstOrThrow({ where: { turnId: zephyr } });
  expect(Buffer.from(ZEPHYR).subarray(assertion.startByte, assertion.endByte).toString()).toBe("moved the Zephyr launch to October");
  const window = await h.api.db.extractionWindow.findFirstOrThrow({ where: { sessionId: batch.session } });
  expect(window.turnIds).toEqual([violin, bridge, zephyr]);
});

test("a batch's extraction is one job: its turns keep their own items and attempts, with no job of their own", async () => {
  llm.script({ json: EMPTY });
  const batch = await importBatch([VIOLIN, ALICE, BRIDGE, ZEPHYR]);
  expect((await batchDone(batch.status_url)).counts.committed).toBe(4);
  const own = await h.api.db.workItem.findUniqueOrThrow({
    where: { queue_subjectType_subjectId: { queue: "extract_assertions", subjectType: "batch", subjectId: batch.batch_id } },
    include: { attemptRecords: true },
  });
  expect([own.status, own.attemptRecords.map((a) => a.status)]).toEqual(["succeeded", ["succeeded"]]);
  expect((own.payload as { batch: unknown }).batch).toEqual({ turns: 4, finished: 1, windowed: 3, alone: 0 });
  const turns = await h.api.db.workItem.findMany({
    where: { queue: "extract_assertions", subjectType: "turn", subjectId: { in: batch.turn_ids } },
    include: { attemptRecords: true },
  });
  expect(turns.map((t) => [t.status, t.attemptRecords.map((a) => a.status)])).toEqual(Array(4).fill(["succeeded", ["succeeded"]]));
  // The rules' turn left the batch staged; the windowed ones name their window, no longer the batch.
  expect(turns.every((t) => (t.payload as { batch_id?: string }).batch_id === undefined)).toBe(true);
  const queues = h.worker.deps.queues;
  expect(await queues.background.extract_assertions.getJob(jobIdFor(own.id))).toBeDefined();
  for (const item of turns) expect(await queues.background.extract_assertions.getJob(jobIdFor(item.id))).toBeUndefined();
  // The rules' turn went on through the batch's own later stages, one job each, as a window's turns do.
  const alice = batch.turn_ids[1]!;
  const later = await h.api.db.workItem.findMany({
    where: { subjectId: { in: [alice, batch.batch_id] }, queue: { in: ["validate_artifacts", "commit_artifacts", "truth_maintenance"] } },
  });
  const hasJob = async (item: (typeof later)[number]) =>
    (await queues.background[item.queue as "validate_artifacts"].getJob(jobIdFor(item.id))) !== undefined;
  const seen = await Promise.all(later.map(async (i) => [i.subjectType, i.queue, i.status, await hasJob(i)]));
  expect(seen.sort()).toEqual([
    ["batch", "commit_artifacts", "succeeded", true],
    ["batch", "truth_maintenance", "succeeded", true],
    ["batch", "validate_artifacts", "succeeded", true],
    ["turn", "commit_artifacts", "succeeded", false],
    ["turn", "truth_maintenance", "succeeded", false],
    ["turn", "validate_artifacts", "succeeded", false],
  ]);
});

test("cancelling a batch that has not run stops its waiting turns with it", async () => {
  // Paused, no worker takes the batch's job before the cancel.
  await Promise.all(h.runtime.workers.map((w) => w.pause()));
  try {
    const batch = await importBatch([VIOLIN, BRIDGE]);
    const own = await h.api.db.workItem.findUniqueOrThrow({
      where: { queue_subjectType_subjectId: { queue: "extract_assertions", subjectType: "batch", subjectId: batch.batch_id } },
    });
    expect((await api.post(`/work-items/${own.id}/cancel`)).status).toBe(200);
    const status = await batchDone(batch.status_url);
    expect(status.counts).toMatchObject({ cancelled: 2, queued: 0, processing: 0 });
  } finally {
    for (const w of h.runtime.workers) w.resume();
  }
});

test("windows close at their turn limit or character limit, and a partial one after its linger", async () => {
  const before = chatCalls();
  llm.script({ json: EMPTY }, { json: EMPTY }, { json: EMPTY }, { json: EMPTY }, { json: EMPTY });
  const long = (text: string) => Array.from({ length: 60 }, () => text).join(" "); // ~5,000 characters
  const byTurns = await importBatch([VIOLIN, BRIDGE, ZEPHYR, VIOLIN, BRIDGE, ZEPHYR, VIOLIN]);
  const byChars = await importBatch([long(BRIDGE), long(ZEPHYR), long(VIOLIN)]);
  await batchDone(byTurns.status_url);
  await batchDone(byChars.status_url);
  expect(chatCalls() - before).toBe(5);
  const sizes = async (sessionId: string) =>
    (await h.api.db.extractionWindow.findMany({ where: { sessionId } })).map((w) => w.turnIds.length).sort((a, b) => b - a);
  expect(await sizes(byTurns.session)).toEqual([3, 3, 1]);
  expect(await sizes(byChars.session)).toEqual([2, 1]);
});

test("a window whose answer fails validation is split in halves and retried; no turn is dropped", async () => {
  const before = chatCalls();
  // The first call and its one repair both answer garbage; then each half gets its own call.
  llm.script({ raw: "not json" }, { raw: "still not json" }, { json: EMPTY }, { json: EMPTY });
  const batch = await importBatch([VIOLIN, BRIDGE, ZEPHYR]);
  const status = await batchDone(batch.status_url);
  expect(status.counts.committed).toBe(3);
  expect(chatCalls() - before).toBe(4);
  const windows = await h.api.db.extractionWindow.findMany({ where: { sessionId: batch.session }, orderBy: { createdAt: "asc" } });
  const parent = windows.find((w) => w.parentId === null)!;
  const halves = windows.filter((w) => w.parentId === parent.id).map((w) => w.turnIds);
  expect(halves.sort((a, b) => b.length - a.length)).toEqual([batch.turn_ids.slice(0, 2), batch.turn_ids.slice(2)]);
});

test("a window's failed attempt keeps the tokens it spent, so its retry spends what is left of the budget", async () => {
  // The first answer is garbage (its tokens spent) and the provider refuses the repair: a retryable failure.
  llm.script(
    { raw: "not json", usage: { inputTokens: 300, outputTokens: 20 } },
    { status: 429, retryAfterMs: "20" },
    { json: EMPTY, usage: { inputTokens: 200, outputTokens: 10 } },
  );
  const batch = await importBatch([VIOLIN, BRIDGE, ZEPHYR]);
  expect((await batchDone(batch.status_url)).counts.committed).toBe(3);
  const window = await h.api.db.extractionWindow.findFirstOrThrow({ where: { sessionId: batch.session } });
  const item = await h.api.db.workItem.findFirstOrThrow({
    where: { queue: "extract_window", subjectId: window.id },
    include: { attemptRecords: { orderBy: { attempt: "asc" } } },
  });
  expect(item.attemptRecords.map((a) => [a.status, a.errorClass, a.tokensUsed])).toEqual([
    ["failed", "provider", 320],
    ["succeeded", null, 210],
  ]);
  expect(item.tokensUsed).toBe(530);
});

test("a window that fails for good fails each of its turns; the batch lists them and each retries on its own", async () => {
  llm.script({ status: 401, message: "bad key" });
  const batch = await importBatch([VIOLIN, BRIDGE, ZEPHYR]);
  const failed = await batchDone(batch.status_url);
  expect(failed.counts).toMatchObject({ committed: 0, failed: 3 });
  expect(failed.failures.map((f) => f.turn_id).sort()).toEqual([...batch.turn_ids].sort());
  expect(failed.failures.every((f) => f.error_class === "provider")).toBe(true);

  llm.script({ json: { ...EMPTY, attributes: [fact(0, "Porto bridge", "status", "delayed", "The bridge project in Porto was delayed")] } });
  const retry = failed.failures.find((f) => f.turn_id === batch.turn_ids[1])!;
  expect((await api.post(`/work-items/${retry.work_item_id}/retry`)).status).toBe(202);
  const after = await batchDone(batch.status_url, (b) => b.counts.committed === 1);
  expect(after.counts).toMatchObject({ committed: 1, failed: 2 });
  const committed = await h.api.db.knowledgeCandidate.findMany({ where: { turnId: batch.turn_ids[1], status: "committed" } });
  expect(committed.map((c) => (c.payload as { value: string }).value)).toEqual(["delayed"]);
});

/** Three turns read in one window (facts for the first and last), imported and committed. */
async function importWindowOfThree() {
  llm.script({
    json: {
      ...EMPTY,
      attributes: [
        fact(0, "Melanie's daughter", "activity", "violin lessons", "her daughter started violin lessons"),
        fact(2, "Zephyr launch", "scheduled_for", "October", "moved the Zephyr launch to October"),
      ],
    },
  });
  const batch = await importBatch([VIOLIN, BRIDGE, ZEPHYR]);
  expect((await batchDone(batch.status_url)).counts.committed).toBe(3);
  return { batch, window: await h.api.db.extractionWindow.findFirstOrThrow({ where: { sessionId: batch.session } }) };
}

/** The values of the attributes the turns' commits wrote, sorted. */
async function factsOf(turnIds: string[]) {
  const assertions = await h.api.db.assertion.findMany({ where: { turnId: { in: turnIds } }, select: { id: true } });
  const facts = await h.api.db.attribute.findMany({ where: { assertionId: { in: assertions.map((a) => a.id) } } });
  return facts.map((f) => f.value).sort();
}

/** Each stage's items of the turns, and of their window, as [queue, status, attempts] per subject. */
async function stagesOf(turnIds: string[], windowId: string) {
  const items = await h.api.db.workItem.findMany({
    where: { subjectId: { in: [...turnIds, windowId] }, queue: { in: ["validate_artifacts", "commit_artifacts", "truth_maintenance"] } },
    include: { attemptRecords: { orderBy: { attempt: "asc" } } },
  });
  const of = (subjectId: string) =>
    items
      .filter((i) => i.subjectId === subjectId)
      .sort((a, b) => a.queue.localeCompare(b.queue))
      .map((i) => [i.queue, i.status, i.attemptRecords.map((a) => a.status)]);
  return { window: of(windowId), turns: turnIds.map(of), items };
}

test("a window's validation, commit and truth maintenance run as one job per stage for all its turns, each turn keeping its own items", async () => {
  const { batch, window } = await importWindowOfThree();

  const { window: windowItems, turns, items } = await stagesOf(batch.turn_ids, window.id);
  const once = ["succeeded"];
  expect(windowItems).toEqual([
    ["commit_artifacts", "succeeded", once],
    ["truth_maintenance", "succeeded", once],
    ["validate_artifacts", "succeeded", once],
  ]);
  // The bridge's turn wrote no fact: its truth maintenance was created done, with no attempt.
  expect(turns).toEqual([
    [
      ["commit_artifacts", "succeeded", once],
      ["truth_maintenance", "succeeded", once],
      ["validate_artifacts", "succeeded", once],
    ],
    [
      ["commit_artifacts", "succeeded", once],
      ["truth_maintenance", "succeeded", []],
      ["validate_artifacts", "succeeded", once],
    ],
    [
      ["commit_artifacts", "succeeded", once],
      ["truth_maintenance", "succeeded", once],
      ["validate_artifacts", "succeeded", once],
    ],
  ]);
  // Only the window's items had jobs.
  const queues = h.worker.deps.queues;
  for (const item of items) {
    const job = await queues.background[item.queue as "validate_artifacts"].getJob(jobIdFor(item.id));
    expect([item.subjectType, job !== undefined]).toEqual([item.subjectType, item.subjectType === "window"]);
  }
  expect(await factsOf(batch.turn_ids)).toEqual(["October", "violin lessons"]);
});

test("a failure in the window's write of all turns at once is written again turn by turn, each once, in the same job", async () => {
  await h.api.db.$executeRawUnsafe(`CREATE SEQUENCE fail_first_seq;
    CREATE FUNCTION fail_first() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      IF NEW.value = 'October' AND nextval('fail_first_seq') = 1 THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$;
    CREATE TRIGGER fail_first BEFORE INSERT ON attributes FOR EACH ROW EXECUTE FUNCTION fail_first();`);
  try {
    const { batch, window } = await importWindowOfThree();
    const { turns } = await stagesOf(batch.turn_ids, window.id);
    for (const stages of turns as unknown[][][])
      expect(stages.find((i) => i[0] === "commit_artifacts")).toEqual(["commit_artifacts", "succeeded", ["succeeded"]]);
    expect(await factsOf(batch.turn_ids)).toEqual(["October", "violin lessons"]);
    // The insert failed once (all turns at once) and was written once more (turn by turn).
    expect(await h.api.db.$queryRawUnsafe(`SELECT last_value::int AS n FROM fail_first_seq`)).toEqual([{ n: 2 }]);
  } finally {
    await h.api.db.$executeRawUnsafe(`DROP TRIGGER fail_first ON attributes; DROP FUNCTION fail_first(); DROP SEQUENCE fail_first_seq;`);
  }
});

test("a turn whose commit fails inside its window's job leaves the window and commits alone; the others commit with it", async () => {
  // Fails the first two inserts of the Zephyr fact (the group's write of all turns, then the turn's own savepoint in
  // it), not the third (its own job): a sequence is not rolled back with the failing savepoint.
  await h.api.db.$executeRawUnsafe(`CREATE SEQUENCE fail_once_seq;
    CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      IF NEW.value = 'October' AND nextval('fail_once_seq') <= 2 THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$;
    CREATE TRIGGER fail_once BEFORE INSERT ON attributes FOR EACH ROW EXECUTE FUNCTION fail_once();`);
  try {
    const { batch, window } = await importWindowOfThree();
    const { turns, items } = await stagesOf(batch.turn_ids, window.id);
    const commit = (turns[2] as unknown[][]).find((i) => i[0] === "commit_artifacts");
    expect(commit).toEqual(["commit_artifacts", "succeeded", ["failed", "succeeded"]]);
    expect((turns[0] as unknown[][]).find((i) => i[0] === "commit_artifacts")).toEqual(["commit_artifacts", "succeeded", ["succeeded"]]);
    const zephyrCommit = items.find((i) => i.subjectId === batch.turn_ids[2] && i.queue === "commit_artifacts")!;
    expect(zephyrCommit.attemptRecords[0]!.errorMessage).toMatch(/^window: .*injected failure/);
    expect(zephyrCommit.payload).not.toHaveProperty("window_id");
    expect(await factsOf(batch.turn_ids)).toEqual(["October", "violin lessons"]);
  } finally {
    await h.api.db.$executeRawUnsafe(`DROP TRIGGER fail_once ON attributes; DROP FUNCTION fail_once(); DROP SEQUENCE fail_once_seq;`);
  }
});

test("a batch over 500 turns is refused naming the field", async () => {
  const session = await api.session();
  const res = await api.post(`/sessions/${session}/turns/batch`, { turns: turnsOf(...Array.from({ length: 501 }, (_, i) => `turn ${i}`)) });
  expect(res.status).toBe(400);
  expect(res.headers["content-type"]).toMatch(/problem\+json/);
  expect(res.body.errors[0].field).toBe("body.turns");
});
