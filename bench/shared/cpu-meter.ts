// CPU a benchmark's work took, whatever else the machine runs: this process's (all its threads: the service's event
// loop, its CPU pool, and the benchmark itself) and its database's Postgres backends' (read from /proc by the pids
// pg_stat_activity names; a backend that starts or ends meanwhile counts only its part seen at either end). On a
// shared machine wall time swings with the load; CPU time per unit of work holds much better.
import { readFileSync } from "node:fs";
import type pg from "pg";

export interface CpuSpent {
  processMs: number;
  postgresMs: number;
}

const TICK_MS = 10; // USER_HZ: 100 on Linux

/** Starts counting; the answer's `stop()` reads what was spent since. */
export async function startCpuMeter(pool: pg.Pool): Promise<{ stop(): Promise<CpuSpent> }> {
  const process0 = process.cpuUsage();
  const backends0 = await backendTicks(pool);
  return {
    async stop() {
      const spent = process.cpuUsage(process0);
      const backends = await backendTicks(pool);
      let ticks = 0;
      for (const [pid, now] of backends) ticks += now - (backends0.get(pid) ?? 0);
      return { processMs: (spent.user + spent.system) / 1000, postgresMs: ticks * TICK_MS };
    },
  };
}

/** utime + stime of each backend of the pool's database, by pid. */
async function backendTicks(pool: pg.Pool): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database()");
  const ticks = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      // Fields after the command (which may hold spaces, so split after its closing parenthesis): utime is the 14th
      // field of the line, stime the 15th.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // Ended meanwhile, or another machine's Postgres: not counted.
    }
  }
  return ticks;
}
