// pnpm bench, section `capacity` (BENCH_SECTIONS=capacity pnpm bench): what one interactive turn and one read cost
// the Postgres primary, counted in Postgres's own statistics of the run's private database, and the turn budget of
// one primary derived from them and the write floor measured in the same run (docs/scaling.md is written from it).
//   - BENCH_CAPACITY_TURNS (300) sequential POST /sessions/{id}/turns (LoCoMo text, instant scripted model), then as
//     many reads of each of GET /profile, POST /query and POST /context, then (BENCH_CAPACITY_CLIENTS, 8; 0: skip)
//     as many turns again from that many concurrent clients;
//   - per operation: transactions committed (pg_stat_database.xact_commit delta, less the bench's own statistics
//     reads and less the background rate measured in an idle window: the workers' polls), rows inserted, updated and
//     deleted per table (pg_stat_user_tables), and for the turns bytes per table (pg_total_relation_size: table,
//     indexes and TOAST together);
//   - the write floor (single-row write transactions per second, 1 and BENCH_CAPACITY_CLIENTS connections) and from
//     it the turn budget of one primary: floor ÷ transactions per turn, an upper bound.
// BENCH_CAPACITY_EMBEDDING_DIMENSIONS (1536; 0: no embedding model) configures an embedding model on the stand-in
// server, so embeddings are written and read as in a deployment with vector search.
// Counts (transactions, rows, bytes) do not depend on the machine's load; the timing figures do.
import { performance } from "node:perf_hooks";
import pg from "pg";
import { benchTurns, call, concurrently, cycle, fmt, newSession, percentiles, postTurn, type TurnText } from "./perf-client";
import { writeFloor } from "./perf-floor";
import { withCluster } from "./perf-sections";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A backend flushes its statistics when it goes idle, at most once a second; one that went idle sooner than that
 * after its last flush holds them until an idle timeout (PGSTAT_IDLE_INTERVAL, 10 s in Postgres 15). So counts are
 * read as settled only once they agree across two reads a second apart, and not before this long after the last
 * request: the API's pooled connections going idle at the end of a phase have flushed by then.
 */
const FLUSH_BOUND_MS = 11_000;
/** The idle window the background rate (the workers' polls, the sweeper) is measured over. */
const IDLE_WINDOW_MS = 15_000;

interface TableCounts {
  ins: number;
  upd: number;
  del: number;
  bytes: number;
}

interface Snapshot {
  /** performance.now() when read. */
  at: number;
  /** The bench's own transactions issued before this read (this read itself not included). */
  seq: number;
  commits: number;
  rollbacks: number;
  tables: Map<string, TableCounts>;
}

interface Cost {
  n: number;
  /** Transactions committed per operation, the bench's own reads and the background rate taken out. */
  tx: number;
  rollbacks: number;
  own: number;
  background: number;
  /** Per table, per operation. */
  tables: Map<string, TableCounts>;
}

const SNAPSHOT_SQL = `
  SELECT pg_stat_clear_snapshot();
  SELECT xact_commit::float AS commits, xact_rollback::float AS rollbacks FROM pg_stat_database WHERE datname = current_database();
  SELECT relname AS name, n_tup_ins::float AS ins, n_tup_upd::float AS upd, n_tup_del::float AS del,
         pg_total_relation_size(relid)::float AS bytes
    FROM pg_stat_user_tables WHERE relname NOT IN ('perf_floor', '_prisma_migrations')`;

/** Reads the statistics on one connection, counting every transaction it commits (one per query: autocommit). */
class StatsReader {
  own = 0;
  constructor(private readonly client: pg.Client) {}

  async query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
    this.own++;
    return (await this.client.query<T>(sql)).rows;
  }

  /** One transaction: the three statements of a simple query run in one implicit transaction. */
  async snapshot(): Promise<Snapshot> {
    const seq = this.own++;
    // A simple query of several statements answers one result each (pg's types say one).
    const answer: pg.QueryResult | pg.QueryResult[] = await this.client.query(SNAPSHOT_SQL);
    const results: pg.QueryResult[] = Array.isArray(answer) ? answer : [answer];
    const db = results[1]!.rows[0] as { commits: number; rollbacks: number };
    const tables = new Map<string, TableCounts>(results[2]!.rows.map((r) => [r.name as string, r as TableCounts]));
    return { at: performance.now(), seq, commits: db.commits, rollbacks: db.rollbacks, tables };
  }

  /** Waits for the pipeline to finish its work items, then until the counts settle (no sooner than `notBefore`). */
  async settled(notBefore: number): Promise<Snapshot> {
    for (let i = 0; ; i++) {
      const [row] = await this.query<{ open: number }>(
        "SELECT count(*)::int AS open FROM work_items WHERE status IN ('queued', 'running')",
      );
      const open = row?.open ?? 0;
      if (open === 0) break;
      if (i >= 600) throw new Error(`capacity: ${open} work items still open after 5 minutes`);
      await sleep(500);
    }
    let previous = await this.snapshot();
    for (let i = 0; i < 180; i++) {
      await sleep(1_000);
      const next = await this.snapshot();
      if (next.at >= notBefore && sameRows(previous, next)) return next;
      previous = next;
    }
    throw new Error("capacity: the table statistics did not settle in 3 minutes");
  }
}

function sameRows(a: Snapshot, b: Snapshot): boolean {
  if (a.tables.size !== b.tables.size) return false;
  for (const [name, x] of a.tables) {
    const y = b.tables.get(name);
    if (!y || x.ins !== y.ins || x.upd !== y.upd || x.del !== y.del) return false;
  }
  return true;
}

function costOf(before: Snapshot, after: Snapshot, n: number, backgroundPerSecond: number): Cost {
  const own = after.seq - before.seq;
  const background = backgroundPerSecond * ((after.at - before.at) / 1000);
  const tables = new Map<string, TableCounts>();
  for (const [name, y] of after.tables) {
    const x = before.tables.get(name) ?? { ins: 0, upd: 0, del: 0, bytes: 0 };
    tables.set(name, { ins: (y.ins - x.ins) / n, upd: (y.upd - x.upd) / n, del: (y.del - x.del) / n, bytes: (y.bytes - x.bytes) / n });
  }
  return {
    n,
    tx: (after.commits - before.commits - own - background) / n,
    rollbacks: after.rollbacks - before.rollbacks,
    own,
    background,
    tables,
  };
}

const written = (t: TableCounts) => t.ins + t.upd + t.del;
const rowsPerOp = (c: Cost) => [...c.tables.values()].reduce((s, t) => s + written(t), 0);
const changed = (c: Cost) =>
  [...c.tables]
    .filter(([, t]) => written(t) > 0)
    .sort(([, a], [, b]) => written(b) - written(a))
    .map(([name, t]) => `${name} ${fmt(written(t), 3)}`)
    .join(", ") || "none";

/** Words of five letters or more from the turns posted, for POST /query. */
function wordsOf(turns: TurnText[]): string[] {
  const words = new Set(turns.flatMap((t) => t.text.match(/\p{L}{5,}/gu) ?? []).map((w) => w.toLowerCase()));
  return words.size > 0 ? [...words] : ["review"];
}

async function timedReads(n: number, read: (i: number) => Promise<{ status: number }>) {
  const times: number[] = [];
  let failed = 0;
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    if ((await read(i)).status !== 200) failed++;
    times.push(performance.now() - t0);
  }
  return { rate: n / ((performance.now() - started) / 1000), p50: percentiles(times).p50, failed };
}

export async function capacitySection(): Promise<void> {
  const n = num("BENCH_CAPACITY_TURNS", 300);
  const clients = num("BENCH_CAPACITY_CLIENTS", 8);
  const dimensions = num("BENCH_CAPACITY_EMBEDDING_DIMENSIONS", 1536);
  const embedding: Record<string, string> =
    dimensions > 0 ? { RECALL_EMBEDDING_MODEL: "openai-compatible:bench-embedding", RECALL_EMBEDDING_DIMENSIONS: String(dimensions) } : {};
  await withCluster(0, [""], embedding, async (cluster, api, server) => {
    const turns = cycle(benchTurns("any"), n);
    const words = wordsOf(turns);
    const client = new pg.Client({ connectionString: cluster.databaseUrl });
    await client.connect();
    const stats = new StatsReader(client);
    try {
      // Warm-up: first requests compile plans, fill caches and write the key's once-a-minute last_used_at.
      const warm = await newSession(api);
      for (const t of turns.slice(0, 10)) await postTurn(api, warm, t);
      const session = await newSession(api);
      const concurrentSessions = await Promise.all(Array.from({ length: clients }, () => newSession(api)));
      let last = await stats.settled(performance.now() + FLUSH_BOUND_MS);

      // The background: what the workers commit with nothing to do (the outbox relay's and the webhook dispatcher's
      // polls, the sweeper), per second; subtracted from every phase below for the phase's duration.
      const idle = await stats.settled(last.at + IDLE_WINDOW_MS);
      const backgroundPerSecond = (idle.commits - last.commits - (idle.seq - last.seq)) / ((idle.at - last.at) / 1000);
      const idleCost = costOf(last, idle, 1, 0);
      last = idle;

      const phase = async (count: number, work: () => Promise<void>) => {
        const before = last;
        const calls = { chat: server.counts.chatCalls, embeddings: server.counts.embeddingInputs };
        const started = performance.now();
        await work();
        const ended = performance.now();
        last = await stats.settled(ended + FLUSH_BOUND_MS);
        return {
          cost: costOf(before, last, count, backgroundPerSecond),
          rate: count / ((ended - started) / 1000),
          chat: (server.counts.chatCalls - calls.chat) / count,
          embeddings: (server.counts.embeddingInputs - calls.embeddings) / count,
        };
      };

      const times: number[] = [];
      const outcomes = new Map<string, number>();
      const sequential = await phase(n, async () => {
        for (const t of turns) {
          const r = await postTurn(api, session, t);
          times.push(r.ms);
          outcomes.set(r.status, (outcomes.get(r.status) ?? 0) + 1);
        }
      });
      const stages = await stats.query<{ queue: string; items: number; attempts: number }>(
        `SELECT w.queue, count(DISTINCT w.id)::float AS items, count(a.id)::float AS attempts
           FROM work_items w LEFT JOIN work_attempts a ON a.work_item_id = w.id WHERE w.subject_type = 'turn' GROUP BY w.queue`,
      );
      const stored = (await stats.query<{ stored: number }>("SELECT count(*)::float AS stored FROM turns"))[0]?.stored ?? 0;

      const reads: { name: string; result: Awaited<ReturnType<typeof timedReads>>; cost: Cost; embeddings: number }[] = [];
      const readPhases: [string, (i: number) => Promise<{ status: number }>][] = [
        ["GET /profile", () => call(api, "GET", "/profile?scope[org]=perf")],
        ["POST /query", (i) => call(api, "POST", "/query", { query: words[i % words.length], scope: ["org=perf"] })],
        [
          "POST /context",
          (i) => call(api, "POST", "/context", { message: turns[i % turns.length]!.text.slice(0, 2_000), scope: ["org=perf"] }),
        ],
      ];
      for (const [name, read] of readPhases) {
        let result: Awaited<ReturnType<typeof timedReads>> | undefined;
        const measured = await phase(n, async () => void (result = await timedReads(n, read)));
        reads.push({ name, result: result!, cost: measured.cost, embeddings: measured.embeddings });
      }

      let concurrent: Awaited<ReturnType<typeof phase>> | undefined;
      if (clients > 0)
        concurrent = await phase(n, () =>
          concurrently(turns, clients, async (t, i) => void (await postTurn(api, concurrentSessions[i % clients]!, t))),
        );

      const floor1 = await writeFloor(cluster.databaseUrl, 1, 5);
      const floorN = clients > 1 ? await writeFloor(cluster.databaseUrl, clients, 5) : floor1;

      const dense = dimensions > 0 ? await denseVectorBytes(client, dimensions, n) : undefined;

      report({
        dense,
        n,
        clients,
        dimensions,
        backgroundPerSecond,
        idleCost,
        sequential,
        times,
        outcomes,
        stages,
        stored,
        reads,
        concurrent,
        floor1,
        floorN,
      });
    } finally {
      await client.end();
    }
  });
}

/**
 * Bytes per embeddings row for a dense vector, as a provider answers (every float8 with a full mantissa): `rows` of
 * them in a temporary copy of the table (its indexes too). The stand-in server's vectors are hashed bags of words,
 * mostly zeros, which Postgres compresses; a real model's do not compress.
 */
async function denseVectorBytes(client: pg.Client, dimensions: number, rows: number): Promise<number> {
  await client.query("CREATE TEMP TABLE capacity_dense (LIKE embeddings INCLUDING ALL)");
  await client.query(
    `INSERT INTO capacity_dense (id, context_id, owner_kind, owner_id, model, dimensions, vector, scope)
     SELECT gen_random_uuid(), gen_random_uuid(), 'turn', gen_random_uuid(), 'openai-compatible:bench-embedding', $1,
            ARRAY(SELECT random() - 0.5 FROM generate_series(1, $1) WHERE g > 0), ARRAY['org=perf']
       FROM generate_series(1, $2) g`,
    [dimensions, rows],
  );
  const { rows: size } = await client.query<{ bytes: number }>("SELECT pg_total_relation_size('capacity_dense')::float AS bytes");
  await client.query("DROP TABLE capacity_dense");
  return size[0]!.bytes / rows;
}

interface Report {
  n: number;
  clients: number;
  dimensions: number;
  backgroundPerSecond: number;
  idleCost: Cost;
  sequential: { cost: Cost; rate: number; chat: number; embeddings: number };
  times: number[];
  outcomes: Map<string, number>;
  stages: { queue: string; items: number; attempts: number }[];
  stored: number;
  reads: { name: string; result: { rate: number; p50: number; failed: number }; cost: Cost; embeddings: number }[];
  concurrent?: { cost: Cost; rate: number };
  floor1: number;
  floorN: number;
  /** Bytes per embeddings row with a dense vector. */
  dense?: number;
}

function report(r: Report): void {
  const { sequential: seq } = r;
  const answered = [...r.outcomes].map(([k, v]) => `${v} ${k}`).join(", ");
  console.log(
    `\n## capacity: what a turn and a read cost one Postgres primary (${r.n} LoCoMo turns, instant scripted model, embeddings ${r.dimensions > 0 ? `${r.dimensions}-d` : "off"})`,
  );
  console.log(
    `  counts: deltas of pg_stat_database.xact_commit and pg_stat_user_tables, read settled (agreeing a second apart, >= ${FLUSH_BOUND_MS / 1000} s after the last request);`,
  );
  console.log(
    `  the bench's own statistics reads are subtracted, and the background (workers' polls, measured idle: ${fmt(r.backgroundPerSecond, 2)} tx/s; rows written idle: ${changed(r.idleCost)}) for each phase's duration.`,
  );
  console.log(`  sequential turns answered: ${answered}`);
  console.log("\n| operation | n | tx per op | rows written per op | ops/s | p50 ms | tx subtracted (own + background) |");
  console.log("|---|---|---|---|---|---|---|");
  const row = (name: string, c: Cost, rate: number, p50: number | undefined) =>
    console.log(
      `| ${name} | ${c.n} | ${fmt(c.tx, 2)} | ${fmt(rowsPerOp(c), 1)} | ${fmt(rate)} | ${p50 === undefined ? "–" : fmt(p50)} | ${c.own} + ${fmt(c.background, 0)} |`,
    );
  row("POST /turns, sequential", seq.cost, seq.rate, percentiles(r.times).p50);
  if (r.concurrent) row(`POST /turns, ${r.clients} clients`, r.concurrent.cost, r.concurrent.rate, undefined);
  for (const read of r.reads) row(read.name, read.cost, read.result.rate, read.result.p50);
  const rollbacks = [seq.cost, ...(r.concurrent ? [r.concurrent.cost] : []), ...r.reads.map((x) => x.cost)].reduce(
    (s, c) => s + c.rollbacks,
    0,
  );
  console.log(`  rollbacks in all phases: ${rollbacks}; failed reads: ${r.reads.map((x) => `${x.name} ${x.result.failed}`).join(", ")}`);

  console.log(`\n### per sequential turn, by table (bytes: pg_total_relation_size, table + indexes + TOAST, delta ÷ ${r.n} turns)`);
  console.log("| table | inserted | updated | deleted | bytes |");
  console.log("|---|---|---|---|---|");
  const tables = [...seq.cost.tables]
    .filter(([, t]) => written(t) > 0 || t.bytes !== 0)
    .sort(([, a], [, b]) => b.bytes - a.bytes || written(b) - written(a));
  for (const [name, t] of tables) console.log(`| ${name} | ${fmt(t.ins, 2)} | ${fmt(t.upd, 2)} | ${fmt(t.del, 2)} | ${fmt(t.bytes, 0)} |`);
  const total = [...seq.cost.tables.values()].reduce((s, t) => ({ rows: s.rows + written(t), bytes: s.bytes + t.bytes }), {
    rows: 0,
    bytes: 0,
  });
  console.log(`| **all tables** | | | | **${fmt(total.bytes, 0)}** (${fmt(total.rows, 1)} rows written) |`);
  const stages = r.stages
    .sort((a, b) => a.queue.localeCompare(b.queue))
    .map((s) => `${s.queue} ${fmt(s.items / r.stored, 2)} (${fmt(s.attempts / r.stored, 2)})`)
    .join(", ");
  console.log(`  work items (attempts) per turn, by queue, over all ${r.stored} turns stored: ${stages}`);
  console.log(`  model calls per turn: ${fmt(seq.chat, 2)} chat, ${fmt(seq.embeddings, 2)} texts embedded`);
  const emb = seq.cost.tables.get("embeddings");
  if (r.dense !== undefined && emb && emb.ins > 0) {
    const withDense = total.bytes - emb.bytes + emb.ins * r.dense;
    console.log(
      `  embeddings: the stand-in's sparse vectors take ${fmt(emb.bytes / emb.ins, 0)} bytes a row; a dense ${r.dimensions}-d vector (measured in a temporary copy of the table) ${fmt(r.dense, 0)} bytes a row, so with a real embedding model a turn takes about ${fmt(withDense, 0)} bytes`,
    );
  }

  console.log("\n### per read, rows written by table");
  for (const read of r.reads) console.log(`  ${read.name}: ${changed(read.cost)}; ${fmt(read.embeddings, 2)} texts embedded per read`);

  const txN = r.concurrent?.cost.tx ?? seq.cost.tx;
  console.log("\n### write floor and turn budget of one primary");
  console.log(`| | 1 connection | ${r.clients} connections |`);
  console.log("|---|---|---|");
  console.log(`| write floor, single-row write tx/s | ${fmt(r.floor1, 0)} | ${fmt(r.floorN, 0)} |`);
  console.log(`| transactions per turn (measured) | ${fmt(seq.cost.tx, 2)} | ${fmt(txN, 2)} |`);
  console.log(
    `| turn budget = floor ÷ tx per turn (upper bound) | ${fmt(r.floor1 / seq.cost.tx)} turns/s | ${fmt(r.floorN / txN)} turns/s |`,
  );
  console.log(`| turns/s measured | ${fmt(seq.rate)} | ${r.concurrent ? fmt(r.concurrent.rate) : "–"} |`);
  console.log(
    "  The budget is an upper bound: the pipeline's transactions write several rows and indexes each, the floor's one row; and here the API, workers and bench share the cores with Postgres.",
  );
}
