// Floors for the performance report, measured on the same Postgres and Redis in the same run.
//  - turn floor: what one turn minimally costs with this architecture: one ingest commit, then
//    four BullMQ job round trips (a worker per queue, each job chaining the next, as the stages
//    do), each worker making two single-row write commits (the work item's start and outcome),
//    and the caller told of the last job's completion through QueueEvents;
//  - write floor: single-row write transactions per second with N concurrent connections.
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { Queue, QueueEvents, Worker } from "bullmq";
import { createWorkerConnection } from "@recall/pipeline";
import pg from "pg";

const STAGES = 4;

async function floorTable(pool: pg.Pool): Promise<void> {
  await pool.query(
    "CREATE TABLE IF NOT EXISTS perf_floor (id bigserial PRIMARY KEY, n int NOT NULL, note text NOT NULL, at timestamptz NOT NULL DEFAULT now())",
  );
}

async function writeOne(client: pg.Pool | pg.PoolClient, n: number): Promise<void> {
  await client.query("BEGIN");
  await client.query("INSERT INTO perf_floor (n, note) VALUES ($1, 'floor')", [n]);
  await client.query("COMMIT");
}

/** Per-turn latencies of the floor pipeline, `turns` sequential turns. */
export async function turnFloor(databaseUrl: string, redisUrl: string, turns: number): Promise<number[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  await floorTable(pool);
  const prefix = `{rfloor-${randomBytes(4).toString("hex")}}`;
  const connection = createWorkerConnection(redisUrl);
  const names = Array.from({ length: STAGES }, (_, i) => `floor-${i + 1}`);
  const queues = names.map((name) => new Queue(name, { connection, prefix }));
  const workers = names.map(
    (name, i) =>
      new Worker(
        name,
        async (job) => {
          await writeOne(pool, job.data.n);
          await writeOne(pool, job.data.n);
          if (i + 1 < STAGES)
            await queues[i + 1]!.add(names[i + 1]!, job.data, { jobId: `${job.data.n}-${i + 2}`, removeOnComplete: true });
        },
        { connection: createWorkerConnection(redisUrl), prefix, concurrency: 4 },
      ),
  );
  const events = new QueueEvents(names[STAGES - 1]!, { connection: createWorkerConnection(redisUrl), prefix });
  await events.waitUntilReady();
  const waiting = new Map<string, () => void>();
  events.on("completed", ({ jobId }) => waiting.get(jobId)?.());
  const times: number[] = [];
  try {
    for (let n = 0; n < turns; n++) {
      const started = performance.now();
      const done = new Promise<void>((resolve) => waiting.set(`${n}-${STAGES}`, resolve));
      await writeOne(pool, n);
      await queues[0]!.add(names[0]!, { n }, { jobId: `${n}-1`, removeOnComplete: true });
      await done;
      waiting.delete(`${n}-${STAGES}`);
      times.push(performance.now() - started);
    }
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    await events.close();
    for (const q of queues) await q.obliterate({ force: true }).catch(() => undefined);
    await Promise.all(queues.map((q) => q.close()));
    connection.disconnect();
    await pool.end();
  }
  return times;
}

/** Single-row write transactions per second with `clients` connections for `seconds`. */
export async function writeFloor(databaseUrl: string, clients: number, seconds: number): Promise<number> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: clients });
  await floorTable(pool);
  let count = 0;
  const deadline = performance.now() + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: clients }, async () => {
        const client = await pool.connect();
        try {
          while (performance.now() < deadline) await writeOne(client, count++);
        } finally {
          client.release();
        }
      }),
    );
  } finally {
    await pool.end();
  }
  return count / seconds;
}
