// Latency of the read endpoints over real HTTP, and the floor they are compared with:
// the same number of indexed single-row SELECTs, issued one after another straight to
// Postgres on one pooled connection. The number of statements an endpoint issues is
// counted, not assumed, by wrapping the pg driver both Prisma and the floor go through.
import { performance } from "node:perf_hooks";
import pg from "pg";

export interface Latency {
  p50: number;
  p99: number;
  samples: number;
}

export interface Probe {
  name: string;
  /** One request; the index picks which conversation and question it reads. */
  run(i: number): Promise<void>;
}

export async function measure(probe: Probe, samples: number, warmup = 20): Promise<Latency> {
  for (let i = 0; i < warmup; i++) await probe.run(i);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await probe.run(i);
    times.push(performance.now() - started);
  }
  return summarise(times);
}

function summarise(times: number[]): Latency {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), samples: sorted.length };
}

/** Statements sent to Postgres by everything in this process while `fn` runs. */
export async function countStatements(fn: () => Promise<void>): Promise<number> {
  const proto = pg.Client.prototype;
  const original: (...args: unknown[]) => unknown = proto.query;
  let count = 0;
  const counting = function (this: unknown, ...args: unknown[]) {
    count++;
    if (process.env.BENCH_DEBUG_SQL)
      console.log(
        String((args[0] as { text?: string })?.text ?? args[0])
          .slice(0, 160)
          .replace(/\s+/g, " "),
      );
    return original.apply(this, args);
  };
  Reflect.set(proto, "query", counting);
  try {
    await fn();
  } finally {
    Reflect.set(proto, "query", original);
  }
  return count;
}

/** The floor: `statements` indexed single-row lookups (api_keys by its unique prefix), one after another. */
export function floorProbe(pool: pg.Pool, statements: number, prefix: string): Probe {
  return {
    name: `floor x${statements}`,
    async run() {
      const client = await pool.connect();
      try {
        for (let i = 0; i < statements; i++)
          await client.query("SELECT id, context_id, hash, revoked_at FROM api_keys WHERE prefix = $1", [prefix]);
      } finally {
        client.release();
      }
    },
  };
}
