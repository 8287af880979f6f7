// Statements and transactions Recall sends Postgres, counted at the pg driver (every pooled client's `query`, which
// Prisma's driver adapter and the raw pools both go through), for a benchmark running the service in its own
// process: `start()` before the work, `report()` after it. A pool of the benchmark's own is left out with `ignore`.
import pg from "pg";

interface Tally {
  count: number;
  ms: number;
}

type Query = (this: pg.Client, ...args: unknown[]) => unknown;

const IGNORED = Symbol("sql-counter-ignored");
let tallies: Map<string, Tally> | undefined;

/** Counts every statement from now on (again from zero if it was counting). */
export function start(): void {
  tallies = new Map();
  const proto = pg.Client.prototype as unknown as { query: Query; [IGNORED]?: boolean; __counted?: boolean };
  if (proto.__counted) return;
  proto.__counted = true;
  const original = proto.query;
  proto.query = function (this: pg.Client, ...args: unknown[]) {
    const result = original.apply(this, args);
    if (!tallies || (this as unknown as Record<symbol, boolean>)[IGNORED]) return result;
    const first = args[0];
    const text = typeof first === "string" ? first : ((first as { text?: string } | undefined)?.text ?? "?");
    const key = shapeOf(text);
    const at = performance.now();
    const tally = tallies.get(key) ?? { count: 0, ms: 0 };
    tallies.set(key, tally);
    tally.count++;
    if (result instanceof Promise) void result.then(done, done);
    function done() {
      tally.ms += performance.now() - at;
    }
    return result;
  };
}

/** The benchmark's own pool: its statements (polls, reads of results) are not Recall's. */
export function ignore(pool: pg.Pool): void {
  pool.on("connect", (client) => ((client as unknown as Record<symbol, boolean>)[IGNORED] = true));
}

/** A statement's shape: whitespace folded, literals and parameters elided, cut to 140 characters. */
function shapeOf(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .replace(/\$\d+/g, "$")
    .replace(/'[^']*'/g, "'…'")
    .replace(/\b\d+\b/g, "N")
    .trim()
    .slice(0, 140);
}

/** Prints statements and transactions per unit (e.g. per turn) and the most frequent shapes. */
export function report(units: number, label = "turn", top = 40): { statements: number; transactions: number } {
  const all = [...(tallies ?? new Map<string, Tally>()).entries()].sort((a, b) => b[1].count - a[1].count);
  const statements = all.reduce((n, [, t]) => n + t.count, 0);
  const transactions = all.filter(([k]) => /^BEGIN\b/i.test(k)).reduce((n, [, t]) => n + t.count, 0);
  console.log(
    `  statements sent: ${statements} (${(statements / units).toFixed(2)} per ${label}), transactions ${transactions} (${(transactions / units).toFixed(2)} per ${label})`,
  );
  for (const [shape, t] of all.slice(0, top))
    console.log(`    ${(t.count / units).toFixed(3).padStart(8)} /${label} ${(t.ms / t.count).toFixed(2).padStart(7)} ms  ${shape}`);
  return { statements: statements / units, transactions: transactions / units };
}
