// Turns racing for one session (issue 21): parallel turns, interactive or not, and batches, are
// stored one after another in order of arrival, never refused with a 409; a turn that cannot get
// the session within RECALL_SESSION_WAIT_MS answers 503 with Retry-After (which @recall/client
// retries) and stores nothing. No workers: what is tested is how turns are stored and numbered,
// so a turn answers 202 pending once TURN_TIMEOUT_MS (100 ms) has passed.
import { Client } from "pg";
import request from "supertest";
import { waitFor } from "@recall/test-support";
import { startHarness, type Harness } from "../testing/harness";
import { createContext, type ContextHandle } from "../testing/api-client";

// The default: a hundred turns racing for one session are stored well within it.
const SESSION_WAIT_MS = 10_000;
let h: Harness;
let ctx: ContextHandle;
let pg: Client;

beforeAll(async () => {
  h = await startHarness({ TURN_TIMEOUT_MS: "100", RECALL_SESSION_WAIT_MS: String(SESSION_WAIT_MS) }, []);
  ctx = await createContext(h.app, "sessions");
  pg = new Client({ connectionString: h.config.DATABASE_URL });
  await pg.connect();
});

afterAll(async () => {
  await pg?.end();
  await h?.close();
});

const url = (path: string) => `/api/v1/${ctx.contextId}${path}`;
const post = (path: string, body: object) => request(h.app).post(url(path)).set("API-KEY", ctx.apiKey).send(body);

async function newSession(): Promise<string> {
  return (await post("/sessions", {})).body.session_id;
}

const turn = (sessionId: string, content: string, wait = true) => post(`/sessions/${sessionId}/turns`, { role: "user", content, wait });

async function seqsOf(sessionId: string): Promise<{ seq: number; content: string }[]> {
  return h.api.db.turn.findMany({ where: { sessionId }, orderBy: { seq: "asc" }, select: { seq: true, content: true } });
}

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/**
 * A turn sent as @recall/client sends it: under an Idempotency-Key, sent again after Retry-After when the session
 * was busy past RECALL_SESSION_WAIT_MS (a machine loaded by other work can take that long for a hundred turns).
 */
async function turnAsClient(sessionId: string, content: string, wait = true) {
  const key = crypto.randomUUID();
  for (let attempt = 1; ; attempt++) {
    const res = await turn(sessionId, content, wait).set("Idempotency-Key", key);
    if (res.status !== 503 || attempt === 10) return res;
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers["retry-after"] ?? 1) * 1_000));
  }
}

test("50 parallel interactive turns and 50 with wait: false are all stored, numbered 1..100 without a gap", async () => {
  const sessionId = await newSession();
  const answers = await Promise.all([
    ...Array.from({ length: 50 }, (_, i) => turnAsClient(sessionId, `interactive ${i}`)),
    ...Array.from({ length: 50 }, (_, i) => turnAsClient(sessionId, `later ${i}`, false)),
  ]);
  expect(answers.filter((a) => a.status !== 202 && a.status !== 200).map((a) => `${a.status} ${a.text}`)).toEqual([]);
  // Every 202, the interactive ones whose wait ended too, says where to follow the turn.
  const pendingAnswers = answers.filter((a) => a.status === 202);
  expect(pendingAnswers.map((a) => a.body.status_url)).toEqual(
    pendingAnswers.map((a) => `/api/v1/${ctx.contextId}/sessions/${sessionId}/turns/${a.body.turn_id}/status`),
  );
  expect((await seqsOf(sessionId)).map((t) => t.seq)).toEqual(oneToN(100));
  expect(
    await h.api.db.workItem.count({
      where: { contextId: ctx.contextId, subjectType: "turn", subjectId: { in: answers.map((a) => a.body.turn_id) } },
    }),
  ).toBe(100);
});

test("8 parallel batches beside single turns: every batch's turns stay consecutive and in its order", async () => {
  const sessionId = await newSession();
  const batch = (b: number) =>
    post(`/sessions/${sessionId}/turns/batch`, {
      turns: Array.from({ length: 20 }, (_, i) => ({ role: "user", content: `batch ${b} turn ${i}` })),
    });
  const answers = await Promise.all([
    ...Array.from({ length: 8 }, (_, b) => batch(b)),
    ...Array.from({ length: 10 }, (_, i) => turn(sessionId, `single ${i}`, false)),
  ]);
  expect(answers.map((a) => a.status)).toEqual(Array(18).fill(202));
  const stored = await seqsOf(sessionId);
  expect(stored.map((t) => t.seq)).toEqual(oneToN(8 * 20 + 10));
  for (let b = 0; b < 8; b++) {
    const seqs = stored.filter((t) => t.content.startsWith(`batch ${b} `));
    expect(seqs.map((t) => t.content)).toEqual(Array.from({ length: 20 }, (_, i) => `batch ${b} turn ${i}`));
    expect(seqs[19]!.seq - seqs[0]!.seq).toBe(19);
  }
});

/** Holds the session's row as another API process storing a turn would, until released. */
async function holdSession(sessionId: string): Promise<() => Promise<void>> {
  await pg.query("BEGIN");
  await pg.query("SELECT id FROM sessions WHERE id = $1 FOR UPDATE", [sessionId]);
  return async () => void (await pg.query("COMMIT"));
}

const waitingOnLock = async () =>
  Number(
    (await pg.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0]
      .n,
  ) > 0;

test("turns are stored in order of arrival while the session is held", async () => {
  const sessionId = await newSession();
  const release = await holdSession(sessionId);
  // then() sends a supertest request; until then it is only built.
  const send = (content: string) => turn(sessionId, content, false).then((res) => res);
  const pending = [send("first")];
  await waitFor(waitingOnLock, { what: "the first turn to wait on the session's row" });
  for (const content of ["second", "third", "fourth", "fifth"]) {
    pending.push(send(content));
    const behind = pending.length - 1;
    await waitFor(async () => h.api.turnService.waitingFor(sessionId) === behind, { what: `${content} to wait in line` });
  }
  await release();
  expect((await Promise.all(pending)).map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
  expect((await seqsOf(sessionId)).map((t) => `${t.seq} ${t.content}`)).toEqual(["1 first", "2 second", "3 third", "4 fourth", "5 fifth"]);
});

test("a session held past RECALL_SESSION_WAIT_MS answers 503 with Retry-After and stores nothing; the retry is stored", async () => {
  const sessionId = await newSession();
  const release = await holdSession(sessionId);
  // One request waits on the row lock, the one behind it in this process's line: both run out of time alike.
  const [onRow, inLine] = await Promise.all([
    turn(sessionId, "too late", false).set("Idempotency-Key", "late-1"),
    turn(sessionId, "behind it", false).set("Idempotency-Key", "late-2"),
  ]);
  await release();
  for (const busy of [onRow, inLine]) {
    expect({ status: busy.status, type: busy.type, title: busy.body.title, retryAfter: Number(busy.headers["retry-after"]) > 0 }).toEqual({
      status: 503,
      type: "application/problem+json",
      title: "session busy",
      retryAfter: true,
    });
    expect(busy.body.detail).toMatch(/RECALL_SESSION_WAIT_MS/);
  }
  expect(await seqsOf(sessionId)).toEqual([]);
  const retried = await turn(sessionId, "too late", false).set("Idempotency-Key", "late-1");
  expect(retried.status).toBe(202);
  expect((await seqsOf(sessionId)).map((t) => t.content)).toEqual(["too late"]);
});

test("a turn to a session of another context, or none, is 404", async () => {
  const other = await createContext(h.app, "sessions-other");
  const theirs = (await request(h.app).post(`/api/v1/${other.contextId}/sessions`).set("API-KEY", other.apiKey).send({})).body.session_id;
  expect((await turn(theirs, "x", false)).status).toBe(404);
  expect((await turn(crypto.randomUUID(), "x")).status).toBe(404);
  expect((await post(`/sessions/${crypto.randomUUID()}/turns/batch`, { turns: [{ role: "user", content: "x" }] })).status).toBe(404);
});
