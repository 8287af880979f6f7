// Reads on a streaming replica (issue 34), against a private primary and a hot standby of it made with the installed
// server binaries (initdb, pg_basebackup -R; the machine's own server takes no replication connections). Replay on
// the standby is held back (recovery_min_apply_delay) so that a read can only see a write it did not wait for by
// luck. Proves: a write's token makes the next read see it, every time; a read without one may be stale, but never
// by more than the lag bound; a standby stopped under load loses no read, and is taken back once it runs again.
import request from "supertest";
import { RecallClient } from "@recall/client";
import { PrivatePostgres, waitFor } from "@recall/test-support";
import { contextClient, createContext, type ContextClient, type ContextHandle } from "../testing/api-client";
import { migratedDatabaseOn, startHarness, type Harness } from "../testing/harness";
import { listen } from "../testing/listen";

const TRIES = 500;
const PARALLEL = 10;
const MAX_LAG_MS = 1_000;
const CHECK_MS = 100;

let primary: PrivatePostgres;
let standby: PrivatePostgres;
let h: Harness;
let api: ContextClient;
let ctx: ContextHandle;

beforeAll(async () => {
  primary = await PrivatePostgres.start();
  const databaseUrl = await migratedDatabaseOn(primary);
  standby = await PrivatePostgres.standbyOf(primary, { applyDelayMs: 500 });
  h = await startHarness({
    DATABASE_URL: databaseUrl,
    DATABASE_REPLICA_URLS: standby.url("recall"),
    RECALL_REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
    RECALL_REPLICA_CHECK_MS: String(CHECK_MS),
  });
  ctx = await createContext(h.app, "read-replica");
  api = contextClient(h.app, ctx);
  await waitFor(async () => h.api.reads!.statuses()[0]!.health === "up", { what: "the standby checked and up", timeoutMs: 30_000 });
}, 120_000);

afterAll(async () => {
  await h?.close();
  await standby?.close();
  await primary?.close();
});

/** One person per lane of the first test, then one for each later test: each reads its own scope. */
const PEOPLE = "Dana Erin Fay Gus Hana Ivo Jane Kai Lena Milo Nora Omar Quin Rosa Sven Tara Uma Vito Wren Xena Yara Zoe".split(" ");

/** A company name per try, letters only (the rules read `CTO at <Name>` as a workplace). */
function company(i: number): string {
  let name = "";
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(97 + ((n - 1) % 26)) + name;
  return `Zen${name}`;
}

/** Says `who` works at `name` and answers the write's consistency token. */
async function write(session: string, who: string, name: string): Promise<string> {
  const res = await api.post(`/sessions/${session}/turns`, {
    role: "user",
    content: `I'm ${who}, CTO at ${name}.`,
    scope: [`user=${who.toLowerCase()}`],
  });
  expect([res.status, res.body.extraction?.status]).toEqual([200, "committed"]);
  const token = res.headers["recall-consistency"];
  expect(token).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
  return token as string;
}

async function profile(who: string, token?: string) {
  const req = api.get(`/profile?scope[user]=${who.toLowerCase()}`);
  const res = await (token ? req.set("Recall-Consistency", token) : req);
  expect(res.status).toBe(200);
  return { servedBy: res.headers["recall-served-by"] as string, body: JSON.stringify(res.body) };
}

test("a read presenting the token of the write before it sees that write, 500 times of 500, with replay held back 500 ms", async () => {
  const seen: boolean[] = [];
  const servedBy = new Map<string, number>();
  await Promise.all(
    Array.from({ length: PARALLEL }, async (_, lane) => {
      const who = PEOPLE[lane]!;
      const session = await api.session();
      for (let i = lane; i < TRIES; i += PARALLEL) {
        const token = await write(session, who, company(i));
        const read = await profile(who, token);
        seen.push(read.body.includes(company(i)));
        servedBy.set(read.servedBy, (servedBy.get(read.servedBy) ?? 0) + 1);
      }
    }),
  );
  expect(seen.filter(Boolean).length).toBe(TRIES);
  // Replay is 500 ms behind and a read waits at most 200 ms for it: the primary served them.
  expect(servedBy.get("primary")).toBeGreaterThan(TRIES / 2);
}, 300_000);

test("without a token a read may be stale, never by more than the lag bound; with replay caught up, the token's read runs on the replica", async () => {
  const who = PEOPLE[PARALLEL]!;
  const session = await api.session();
  const written: { name: string; at: number }[] = [];
  const reads: { started: number; body: string; servedBy: string }[] = [];
  for (let i = 0; i < 40; i++) {
    await write(session, who, company(1_000 + i));
    written.push({ name: company(1_000 + i), at: Date.now() });
    const started = Date.now();
    reads.push({ started, ...(await profile(who)) });
  }
  const onReplica = reads.filter((r) => r.servedBy === "replica-1");
  expect(onReplica.length).toBeGreaterThan(0);
  for (const read of onReplica) {
    // The newest write it shows; every write it does not show came later than the bound before the read.
    const shown = written.findLastIndex((w) => read.body.includes(w.name));
    const missedOldest = written[shown + 1];
    if (missedOldest && missedOldest.at < read.started) expect(read.started - missedOldest.at).toBeLessThanOrEqual(MAX_LAG_MS);
  }

  standby.setApplyDelay(0);
  const token = await write(session, who, company(2_000));
  await waitFor(async () => (await profile(who, token)).servedBy === "replica-1", { what: "a token's read on the caught-up replica" });
  expect((await profile(who, token)).body).toContain(company(2_000));
}, 120_000);

test("a token that is not one a write answered is a 400 naming the header", async () => {
  const res = await api.get("/profile").set("Recall-Consistency", "yesterday");
  expect(res.status).toBe(400);
  expect(res.body.errors).toEqual([{ field: "header.Recall-Consistency", message: expect.stringMatching(/Recall-Consistency/) }]);
});

test("the TypeScript client's plain write-then-read loop sees each write, with replay held back 500 ms", async () => {
  standby.setApplyDelay(500);
  const server = await listen(h.app);
  try {
    const recall = new RecallClient({ baseUrl: server.url, contextId: ctx.contextId, apiKey: ctx.apiKey });
    const { session_id } = await recall.sessions.create();
    for (let i = 0; i < 20; i++) {
      const turn = await recall.turns.post(session_id, {
        role: "user",
        content: `I'm Pia, CTO at ${company(4_000 + i)}.`,
        scope: ["user=pia"],
      });
      expect(turn.extraction.status).toBe("committed");
      expect(JSON.stringify(await recall.profile({ user: "pia" }))).toContain(company(4_000 + i));
    }
  } finally {
    await server.close();
    standby.setApplyDelay(0);
  }
}, 120_000);

test("the standby stopped under load: every read is answered (by the primary), and once it runs again reads go back to it", async () => {
  const who = PEOPLE[PARALLEL + 1]!;
  const session = await api.session();
  let stop = false;
  const statuses: number[] = [];
  const servedBy = new Set<string>();
  const load = (async () => {
    for (let i = 0; !stop; i++) {
      const token = await write(session, who, company(3_000 + i));
      for (const t of [token, undefined]) {
        const req = api.get(`/profile?scope[user]=${who.toLowerCase()}`);
        const res = await (t ? req.set("Recall-Consistency", t) : req);
        statuses.push(res.status);
        servedBy.add(res.headers["recall-served-by"] as string);
      }
    }
  })();
  try {
    await waitFor(async () => statuses.length >= 10, { what: "reads under load" });
    await standby.stop("immediate");
    const during = statuses.length;
    await waitFor(async () => h.api.reads!.statuses()[0]!.health === "down", { what: "the standby left out" });
    await waitFor(async () => statuses.length >= during + 20, { what: "reads while the standby is down" });
    const ready = await request(h.app).get("/readyz");
    expect(ready.body.checks.find((c: { name: string }) => c.name === "replicas").detail).toMatch(/^replica-1 down/);
    await standby.start();
    servedBy.clear();
    await waitFor(async () => servedBy.has("replica-1"), { what: "reads back on the standby", timeoutMs: 30_000 });
  } finally {
    stop = true;
    await load;
  }
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  const metrics = await request(h.app).get("/metrics");
  expect(metrics.text).toMatch(/recall_replica_up\{replica="replica-1",state="up"\} 1/);
  expect(metrics.text).toMatch(/recall_replica_reads_total\{served_by="primary",reason="(replica_failed|no_replica_up|replicas_behind)"\}/);
}, 180_000);

test("a standby promoted to a primary of its own is left out: its reads go to the primary", async () => {
  standby.promote();
  await waitFor(async () => h.api.reads!.statuses()[0]!.health === "promoted", { what: "the promoted standby seen" });
  const session = await api.session();
  const token = await write(session, "Pia", company(5_000));
  const [withToken, without] = [await profile("Pia", token), await profile("Pia")];
  expect([withToken.servedBy, without.servedBy]).toEqual(["primary", "primary"]);
  expect(withToken.body).toContain(company(5_000));
  expect(without.body).toContain(company(5_000));
});
