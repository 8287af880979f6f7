// Reads on Postgres streaming replicas (docs/operating.md, "Read replicas"). Each replica is a Prisma client of its
// own (the same driver adapter and row-level security as the primary's); which one serves a read is chosen per
// request from what a monitor measures every RECALL_REPLICA_CHECK_MS on a connection of its own: whether it is still
// a standby, how far it has replayed, and how stale that makes it. The primary's WAL position after a write is the
// write's consistency token: a read presenting one runs on a replica that has replayed past it, waiting at most
// `waitMs` for one to, else on the primary. A read without a token runs on a replica under `maxLagMs`, else on the
// primary. A replica that fails a read is left out at once and the read runs again on the primary, so no read fails
// because a replica did; the next check that answers takes it back.
import { Pool } from "pg";
import type { Db } from "./index";
import { isDatabaseUnavailable } from "./unavailable";

export type ReplicaHealth = "up" | "lagging" | "down" | "promoted";

export interface ReplicaStatus {
  name: string;
  health: ReplicaHealth;
  /** How stale its reads may be, in ms: 0 when it had replayed the primary's last position seen; null when unknown. */
  lagMs: number | null;
  replayLsn: string | null;
  error?: string;
}

export interface ReadReplicaOptions {
  primary: Db;
  primaryUrl: string;
  urls: readonly string[];
  /** A Prisma client for a replica's URL, as the primary's is made. */
  connect: (url: string) => Db;
  waitMs: number;
  maxLagMs: number;
  checkEveryMs: number;
}

/** Where a read ran: `primary`, or the replica's name (`replica-1`, …, in the order of DATABASE_REPLICA_URLS). */
export interface Served<T> {
  result: T;
  servedBy: string;
  /** Why the primary served it, when replicas are configured: no_replica_up, replicas_behind, not_replayed, replica_failed. */
  reason?: string;
}

const LSN = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i;

/** A WAL position as a number (`16/B374D848`); undefined when the text is not one. */
export function lsnValue(text: string): bigint | undefined {
  const m = LSN.exec(text);
  return m ? (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`) : undefined;
}

/** The primary's WAL position now: every transaction committed before this call is at or before it. */
export async function writePosition(db: Db): Promise<string> {
  const [row] = await db.$queryRaw<{ lsn: string }[]>`SELECT pg_current_wal_lsn()::text AS lsn`;
  return row!.lsn;
}

/** A recovery conflict cancels a standby's query when replay needs what it reads; the primary has no such conflict. */
function isRecoveryConflict(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (/conflict with recovery/i.test(String((e as { message?: unknown }).message ?? ""))) return true;
  }
  return false;
}

interface Waiter {
  lsn: bigint;
  deadline: number;
  resolve: (replayed: boolean) => void;
}

class Replica {
  health: ReplicaHealth = "down";
  lagMs: number | null = null;
  replay: bigint | undefined;
  replayText: string | null = null;
  /** When the last check that answered was sent (Date.now()): its lag grows by the time since. */
  checkedAt = 0;
  error: string | undefined = "not checked yet";
  private readonly probe: Pool;
  private waiters: Waiter[] = [];
  private polling = false;

  constructor(
    readonly name: string,
    readonly db: Db,
    url: string,
    private readonly pollMs: number,
  ) {
    // One connection, bounded in time, so a replica that hangs is found out within the check's interval.
    this.probe = new Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 1_000, query_timeout: 1_000, idleTimeoutMillis: 0 });
    this.probe.on("error", () => undefined);
  }

  async check(primaryLsn: string | null, maxLagMs: number): Promise<void> {
    const sent = Date.now();
    try {
      const { rows } = await this.probe.query<{ standby: boolean; replay: string | null; lag_ms: number | null }>(
        `SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replay,
                CASE WHEN $1::pg_lsn IS NULL OR pg_last_wal_replay_lsn() >= $1::pg_lsn THEN 0
                     ELSE (EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 END AS lag_ms`,
        [primaryLsn],
      );
      const row = rows[0]!;
      this.error = undefined;
      this.checkedAt = sent;
      this.noteReplay(row.replay);
      this.lagMs = row.lag_ms === null ? null : Math.max(0, Math.round(row.lag_ms));
      if (!row.standby) this.health = "promoted";
      else if (this.lagMs === null || this.lagMs > maxLagMs) this.health = "lagging";
      else this.health = "up";
    } catch (err) {
      this.markDown(err);
    }
  }

  markDown(err: unknown): void {
    this.health = "down";
    this.lagMs = null;
    this.error = (err as Error).message ?? String(err);
    for (const w of this.waiters.splice(0)) w.resolve(false);
  }

  /** How stale a read here may be now, at most: the lag measured, plus the time since it was (replay only moves on). */
  stalenessBound(now: number): number {
    return this.lagMs === null ? Infinity : this.lagMs + (now - this.checkedAt);
  }

  replayed(lsn: bigint): boolean {
    return this.replay !== undefined && this.replay >= lsn;
  }

  /** Resolves true once this replica has replayed past `lsn`, false when `waitMs` passes first; one poll serves every waiter. */
  waitFor(lsn: bigint, waitMs: number): Promise<boolean> {
    if (this.replayed(lsn)) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.waiters.push({ lsn, deadline: Date.now() + waitMs, resolve });
      if (!this.polling) void this.poll();
    });
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      while (this.waiters.length > 0) {
        try {
          const { rows } = await this.probe.query<{ replay: string | null }>("SELECT pg_last_wal_replay_lsn()::text AS replay");
          this.noteReplay(rows[0]!.replay);
        } catch (err) {
          this.markDown(err);
          return;
        }
        const now = Date.now();
        this.waiters = this.waiters.filter((w) => {
          const done = this.replayed(w.lsn) || now >= w.deadline;
          if (done) w.resolve(this.replayed(w.lsn));
          return !done;
        });
        if (this.waiters.length > 0) await new Promise((r) => setTimeout(r, this.pollMs));
      }
    } finally {
      this.polling = false;
    }
  }

  private noteReplay(text: string | null): void {
    const value = text === null ? undefined : lsnValue(text);
    if (value !== undefined && (this.replay === undefined || value > this.replay)) [this.replay, this.replayText] = [value, text];
  }

  status(): ReplicaStatus {
    return {
      name: this.name,
      health: this.health,
      lagMs: this.lagMs,
      replayLsn: this.replayText,
      ...(this.error ? { error: this.error } : {}),
    };
  }

  async close(): Promise<void> {
    for (const w of this.waiters.splice(0)) w.resolve(false);
    await Promise.allSettled([this.probe.end(), this.db.$disconnect()]);
  }
}

export class ReadReplicas {
  private readonly replicas: Replica[];
  private readonly primaryProbe: Pool;
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  private checking: Promise<void> | undefined;

  constructor(private readonly options: ReadReplicaOptions) {
    this.replicas = options.urls.map((url, i) => new Replica(`replica-${i + 1}`, options.connect(url), url, 5));
    this.primaryProbe = new Pool({ connectionString: options.primaryUrl, max: 1, connectionTimeoutMillis: 1_000, query_timeout: 1_000 });
    this.primaryProbe.on("error", () => undefined);
  }

  /** Checks every replica now, then every `checkEveryMs`; answers once the first check is done. */
  async start(): Promise<void> {
    this.timer ??= setInterval(() => void this.check(), this.options.checkEveryMs);
    this.timer.unref();
    await this.check();
  }

  /** One round of checks (a round still running is joined, not doubled). */
  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async checkAll(): Promise<void> {
    const primaryLsn = await this.primaryProbe.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn").then(
      (r) => r.rows[0]!.lsn,
      () => null,
    );
    await Promise.all(this.replicas.map((r) => r.check(primaryLsn, this.options.maxLagMs)));
  }

  statuses(): ReplicaStatus[] {
    return this.replicas.map((r) => r.status());
  }

  /**
   * Runs `read` where it may: with a token, on a replica that replayed past it (waiting up to waitMs), without one, on
   * a replica under the lag bound; else, or when the replica fails it, on the primary.
   */
  async read<T>(token: string | undefined, read: (db: Db) => Promise<T>): Promise<Served<T>> {
    const { replica, reason } = await this.choose(token);
    if (!replica) return { result: await read(this.options.primary), servedBy: "primary", reason };
    try {
      return { result: await read(replica.db), servedBy: replica.name };
    } catch (err) {
      if (!isDatabaseUnavailable(err) && !isRecoveryConflict(err)) throw err;
      replica.markDown(err);
      return { result: await read(this.options.primary), servedBy: "primary", reason: "replica_failed" };
    }
  }

  private async choose(token: string | undefined): Promise<{ replica?: Replica; reason?: string }> {
    const following = this.rotation().filter((r) => r.health === "up" || r.health === "lagging");
    const lsn = token === undefined ? undefined : lsnValue(token);
    if (lsn === undefined) {
      // Without a token the bound is the promise: a replica whose staleness may have grown past it since its check is skipped.
      const now = Date.now();
      const fresh = following.find((r) => r.stalenessBound(now) <= this.options.maxLagMs);
      if (fresh) return { replica: fresh };
      return { reason: following.length === 0 ? "no_replica_up" : "replicas_behind" };
    }
    // A replica behind the bound may still have replayed past this token.
    const ready = following.find((r) => r.replayed(lsn));
    if (ready) return { replica: ready };
    const up = following.filter((r) => r.health === "up");
    if (up.length === 0) return { reason: "no_replica_up" };
    if (this.options.waitMs > 0 && (await up[0]!.waitFor(lsn, this.options.waitMs))) return { replica: up[0] };
    return { reason: "not_replayed" };
  }

  /** The replicas starting from the next in turn, so reads spread over them. */
  private rotation(): Replica[] {
    const start = this.next++ % this.replicas.length;
    return [...this.replicas.slice(start), ...this.replicas.slice(0, start)];
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.checking?.catch(() => undefined);
    await Promise.allSettled([...this.replicas.map((r) => r.close()), this.primaryProbe.end()]);
  }
}
