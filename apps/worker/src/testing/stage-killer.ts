// kill -9 at chosen points: the killer aims at the stage with the fewest kills among those a live worker
// process holds an active job of (BullMQ records the process on the job: processedBy),
// lets a random part of the stage pass (with RECALL_FAULT_DELAY_MS the stage is then inside its
// writing transaction, or between its work and its outcome, or between its outcome and the next
// stage's enqueue), SIGKILLs that process and starts a new one. Every job the killed process held
// is recorded with its work item's attempt, so a test can check each attempt was closed as abandoned
// and that no item came near its attempts budget.
import type { Pool } from "pg";
import { QUEUE_NAMES, type QueueName, type QueueSet, type StagePayload } from "@recall/pipeline";
import type { WorkerFleet } from "./worker-fleet";

export interface KilledItem {
  workItemId: string;
  queue: QueueName;
  /** The work item's status and attempt count when the kill landed. */
  status: string;
  attempt: number;
}

export interface Kill {
  stage: QueueName;
  group: string;
  /** Just before the signal was sent. */
  at: Date;
  /** How long the killer waited for the stage to be running somewhere. */
  waitedMs: number;
  /** The stage ran chained, in the job of the stage before it (the kill landed mid-chain). */
  chained: boolean;
  items: KilledItem[];
}

export interface StageKillerOptions {
  fleet: WorkerFleet;
  queues: QueueSet;
  db: Pick<Pool, "query">;
  /** The stages to aim at, in turn. */
  stages: readonly QueueName[];
  /** The kill lands this long (uniformly at random, up to the bound) after the job was seen active. */
  maxJitterMs: number;
  /** Aim only at items killed fewer times than this. */
  maxTargetKills?: number;
  /**
   * Never kill a process holding an item killed this often already: each kill costs the items it interrupts an
   * attempt, and the run must not exhaust any item's budget (default 2; every queue allows at least 3).
   */
  maxKillsPerItem?: number;
  /** How long to wait for the stage to have something running before moving on to the next stage. */
  waitMs?: number;
  /** Kills to land in the middle of a chained stage (chain-guard.ts) before any other target is preferred (default 0). */
  midChain?: number;
  /** How many kills one stage may be ahead of the stage with the fewest (default: no bound). */
  maxAhead?: number;
}

const POLL_MS = 50;
/** The stages that may run chained, in the job of the stage before them. */
const CHAINED: ReadonlySet<QueueName> = new Set(["validate_artifacts", "commit_artifacts", "truth_maintenance"]);
/** The stages whose jobs may carry chained ones. */
const CARRIERS: ReadonlySet<QueueName> = new Set(["extract_assertions", "validate_artifacts", "commit_artifacts"]);

/** A stage running in a process of the fleet: its own job, or chained in an earlier stage's. */
interface Running {
  queue: QueueName;
  workItemId: string;
  group?: string;
  chained?: boolean;
}

export class StageKiller {
  readonly kills: Kill[] = [];
  readonly killsPerItem = new Map<string, number>();
  /** Scans that found no stage running (each costs POLL_MS): how long the run waited for work to aim at. */
  idlePolls = 0;

  constructor(private readonly options: StageKillerOptions) {}

  /**
   * Kills until `target` kills landed on running work, or `stop()`. Each kill goes to the stage with the fewest
   * kills so far among those running now, so a stage that is seldom running (a window) gets its share without
   * the run waiting on it while other stages run (a turn given to an idle stage used to cost up to `waitMs`).
   */
  async run(target: number, stop: () => boolean = () => false): Promise<Kill[]> {
    const { stages } = this.options;
    let looking = Date.now();
    while (this.kills.length < target && !stop()) {
      const counts = this.perStage();
      const targets = await this.targets(stages);
      // Mid-chain first, until `midChain` kills landed there: a chained stage runs briefly, so it is taken when seen.
      const chained = this.kills.filter((k) => k.chained).length < (this.options.midChain ?? 0) && targets.find((t) => t.chained);
      const running = new Set(targets.map((t) => t.queue));
      // A stage that is often running (extraction) would take most kills: none gets more than `maxAhead` past the fewest.
      const fewest = Math.min(...stages.map((s) => counts[s] ?? 0));
      const allowed = (s: QueueName) => (counts[s] ?? 0) <= fewest + (this.options.maxAhead ?? Infinity);
      const stage = chained
        ? chained.queue
        : [...stages].filter((s) => running.has(s) && allowed(s)).sort((a, b) => (counts[a] ?? 0) - (counts[b] ?? 0))[0];
      const kill = stage && (await this.killDuring(stage, stop, 0, chained ? "chained" : "any"));
      if (kill) {
        kill.waitedMs = kill.at.getTime() - looking;
        looking = Date.now();
      } else {
        this.idlePolls += 1;
        await sleep(POLL_MS);
      }
    }
    return this.kills;
  }

  /** One kill -9 of the process running a job of `stage`; undefined when none ran within waitMs. */
  async killDuring(
    stage: QueueName,
    stop: () => boolean = () => false,
    waitMs = this.options.waitMs ?? 5_000,
    how: "any" | "chained" = "any",
  ): Promise<Kill | undefined> {
    const { fleet, maxJitterMs, maxKillsPerItem = 2 } = this.options;
    const began = Date.now();
    const deadline = began + waitMs;
    // One look at least (waitMs 0: only if the stage is running now).
    for (let first = true; (first || Date.now() < deadline) && !stop(); first = false) {
      const target = (await this.targets([stage])).find((t) => how === "any" || t.chained);
      if (!target) {
        await sleep(POLL_MS);
        continue;
      }
      // A chained stage is over in a few fault delays: it is hit early in its run or not at all.
      await sleep(Math.random() * (how === "chained" ? maxJitterMs / 4 : maxJitterMs));
      const held = (await this.active(QUEUE_NAMES)).filter((job) => job.group === target.group);
      if (!held.some((job) => job.queue === stage)) continue;
      if (held.some((job) => (this.killsPerItem.get(job.workItemId) ?? 0) >= maxKillsPerItem)) {
        await sleep(POLL_MS);
        continue;
      }
      const items = await this.itemStates(held);
      const at = new Date();
      await fleet.crash(target.group!);
      for (const item of items) this.killsPerItem.set(item.workItemId, (this.killsPerItem.get(item.workItemId) ?? 0) + 1);
      const kill = { stage, group: target.group!, at, items, waitedMs: at.getTime() - began, chained: target.chained === true };
      this.kills.push(kill);
      return kill;
    }
    return undefined;
  }

  /** Active jobs of the stages held by a live process of the fleet, on items not yet killed `maxTargetKills` times. */
  private async targets(stages: readonly QueueName[]): Promise<Running[]> {
    const { maxTargetKills = 1 } = this.options;
    return (await this.active(stages)).filter(
      (job) => job.group !== undefined && (this.killsPerItem.get(job.workItemId) ?? 0) < maxTargetKills,
    );
  }

  /**
   * Running stages of the queues, with the fleet group of the live process holding each (undefined: a dead one's):
   * active jobs, and the chained stages running inside an active job of an earlier stage (chain-guard.ts), found as
   * a later stage's item of the job's subject that is `running` in Postgres.
   */
  private async active(queues: readonly QueueName[]): Promise<Running[]> {
    const jobs: (Running & { subjectId: string })[] = [];
    for (const queue of QUEUE_NAMES) {
      const lanes = [this.options.queues[queue], this.options.queues.background[queue]];
      for (const job of (await Promise.all(lanes.map((lane) => lane.getActive()))).flat()) {
        const data = job.data as StagePayload;
        jobs.push({
          queue,
          workItemId: data.workItemId,
          subjectId: data.subjectId,
          group: this.options.fleet.groupOfWorker(job.processedBy),
        });
      }
    }
    const own = new Set(jobs.map((j) => j.workItemId));
    const carriers = jobs.filter((j) => CARRIERS.has(j.queue) && j.group !== undefined);
    const chained: Running[] = [];
    if (carriers.length > 0) {
      const { rows } = await this.options.db.query<{ id: string; queue: QueueName; subject_id: string }>(
        `SELECT id, queue, subject_id FROM work_items
         WHERE subject_id = ANY($1::uuid[]) AND queue = ANY($2::text[]) AND status = 'running'`,
        [carriers.map((c) => c.subjectId), [...CHAINED]],
      );
      for (const row of rows.filter((r) => !own.has(r.id))) {
        const carrier = carriers.find((c) => c.subjectId === row.subject_id);
        if (carrier) chained.push({ queue: row.queue, workItemId: row.id, group: carrier.group, chained: true });
      }
    }
    return [...jobs, ...chained]
      .filter((j) => queues.includes(j.queue))
      .map(({ queue, workItemId, group, chained }) => ({ queue, workItemId, group, chained }));
  }

  private async itemStates(jobs: { queue: QueueName; workItemId: string }[]): Promise<KilledItem[]> {
    const { rows } = await this.options.db.query<{ id: string; status: string; attempts: number }>(
      `SELECT id, status::text AS status, attempts FROM work_items WHERE id = ANY($1::uuid[])`,
      [jobs.map((j) => j.workItemId)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return jobs.map((j) => ({
      workItemId: j.workItemId,
      queue: j.queue,
      status: byId.get(j.workItemId)?.status ?? "unknown",
      attempt: byId.get(j.workItemId)?.attempts ?? 0,
    }));
  }

  /** Kills per stage, for the summary. */
  perStage(): Partial<Record<QueueName, number>> {
    const counts: Partial<Record<QueueName, number>> = {};
    for (const kill of this.kills) counts[kill.stage] = (counts[kill.stage] ?? 0) + 1;
    return counts;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
