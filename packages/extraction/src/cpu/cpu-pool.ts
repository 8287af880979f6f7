// CPU-bound steps (the rules, document parsing and splitting) run on worker threads, never on
// the event loop that serves requests and renews job locks. Each task has a hard time and heap
// limit: a task past it is ended with its thread (Piscina terminates the thread of an aborted
// task, and Node that of a thread out of heap), its work item fails with class `budget`, and
// the process and every other task go on. Two lanes: interactive work (someone waits for it)
// has threads background work (imports, documents) cannot take, and background threads run
// at a lower OS priority.
import { createRequire } from "node:module";
import path from "node:path";
import { Piscina } from "piscina";
import { ClassifiedError, type ExtractionInput } from "@recall/contracts";
import type { CpuTask, CpuTaskName, CpuTasks } from "./cpu-tasks";

export type CpuLane = "interactive" | "background";

export interface CpuRunOptions {
  lane: CpuLane;
  signal?: AbortSignal;
}

/** Runs a CPU task somewhere: on a pool thread (CpuPool) or, in tests and benches, in this thread (inlineCpu). */
export interface CpuRunner {
  run<K extends CpuTaskName>(
    name: K,
    input: CpuTasks[K]["input"],
    options: CpuTasks[K]["options"],
    run: CpuRunOptions,
  ): Promise<CpuTasks[K]["result"]>;
}

export interface CpuPoolOptions {
  /** Threads only interactive work uses. */
  interactiveThreads: number;
  /** Threads background work uses (at most this many background tasks run at once). */
  backgroundThreads: number;
  /** How much lower (nice) background threads run; default 5. */
  backgroundNice?: number;
  /** Longest one task may run, from the moment a thread takes it. */
  taskTimeoutMs: number;
  /** A thread's heap limit. */
  maxHeapMb: number;
  /**
   * The tasks compiled to JavaScript, for the threads to load instead of the TypeScript source under tsx (cpu-thread.cjs):
   * tests build them once per run, as each of their worker processes starts two threads.
   */
  tasksModule?: string;
}

/** A CPU task past its time or heap limit. Class `budget`, never retried: the same input costs the same. */
export class CpuBudgetError extends ClassifiedError {
  override name = "CpuBudgetError";
  readonly errorClass = "budget" as const;
  readonly retryable = false;
}

const THREAD_ENTRY = path.join(__dirname, "cpu-thread.cjs");
/** How much lower background threads run (nice), so a saturated machine still serves interactive work first. */
const BACKGROUND_NICE = 5;

export class CpuPool implements CpuRunner {
  readonly #lanes: Record<CpuLane, Lane>;

  constructor(private readonly options: CpuPoolOptions) {
    this.#lanes = {
      interactive: new Lane(options.interactiveThreads, options, 0),
      background: new Lane(options.backgroundThreads, options, options.backgroundNice ?? BACKGROUND_NICE),
    };
  }

  async run<K extends CpuTaskName>(
    name: K,
    input: CpuTasks[K]["input"],
    options: CpuTasks[K]["options"],
    run: CpuRunOptions,
  ): Promise<CpuTasks[K]["result"]> {
    const result: unknown = await this.#lanes[run.lane].run({ name, input, options }, run.signal);
    return result as CpuTasks[K]["result"];
  }

  /** Starts a thread per lane now, so a worker process's first turns do not wait for one (see warm()). */
  async warm(): Promise<void> {
    const lanes: CpuLane[] = ["interactive", "background"];
    const input = (): ExtractionInput => ({
      text: "",
      kind: "turn",
      referenceTime: new Date(0),
      knownEntities: [],
      knownAttributes: [],
      activeInstructions: [],
    });
    await Promise.all(lanes.map((lane) => this.run("rules", input(), { threshold: 1 }, { lane })));
  }

  /** Tasks waiting for a thread, per lane (metrics, tests). */
  waiting(lane: CpuLane): number {
    return this.#lanes[lane].waiting;
  }

  async close(): Promise<void> {
    await Promise.all([this.#lanes.interactive.close(), this.#lanes.background.close()]);
  }
}

/** One lane: a Piscina pool and a gate that hands it a task only when a thread is free, so a task's time limit counts its run alone. */
class Lane {
  readonly #pool: Piscina;
  readonly #queue: (() => void)[] = [];
  #running = 0;

  constructor(
    private readonly threads: number,
    private readonly limits: Pick<CpuPoolOptions, "taskTimeoutMs" | "maxHeapMb" | "tasksModule">,
    niceIncrement: number,
  ) {
    if (niceIncrement > 0) keepNiceLoaded();
    this.#pool = new Piscina({
      filename: THREAD_ENTRY,
      // Started on first use and kept: a start (loading the rules and parsers) takes a second or two, and a
      // task's time limit counts from when its thread takes it, so a cold thread costs latency, never a budget.
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 10 * 60_000,
      niceIncrement,
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb },
      workerData: { tasksModule: limits.tasksModule },
    });
    // A thread that fails between tasks (out of heap just as its task was ended) must not take the process down
    // as an unhandled 'error' event: the task that caused it has its answer already, and Piscina replaces the thread.
    this.#pool.on("error", () => undefined);
  }

  get waiting(): number {
    return this.#queue.length;
  }

  async run(task: CpuTask, signal: AbortSignal | undefined): Promise<unknown> {
    await this.#acquire(signal);
    const deadline = new TaskDeadline(this.limits.taskTimeoutMs);
    try {
      const stop = signal ? AbortSignal.any([deadline.signal, signal]) : deadline.signal;
      return await this.#pool.run({ ...task, started: deadline.started }, { signal: stop });
    } catch (err) {
      throw this.#classify(err, task.name, deadline.signal);
    } finally {
      deadline.clear();
      this.#release();
    }
  }

  #classify(err: unknown, name: string, limit: AbortSignal): unknown {
    if (limit.aborted) {
      return new CpuBudgetError(
        `${name} ran past its time limit of ${this.limits.taskTimeoutMs} ms (RECALL_CPU_TASK_TIMEOUT_MS); its thread was ended`,
      );
    }
    if ((err as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY") {
      return new CpuBudgetError(
        `${name} ran past its memory limit of ${this.limits.maxHeapMb} MB (RECALL_CPU_TASK_MAX_HEAP_MB); its thread was ended`,
      );
    }
    return err;
  }

  #acquire(signal: AbortSignal | undefined): Promise<void> {
    if (this.#running < this.threads) {
      this.#running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const take = () => {
        signal?.removeEventListener("abort", leave);
        this.#running++;
        resolve();
      };
      const leave = () => {
        const at = this.#queue.indexOf(take);
        if (at >= 0) this.#queue.splice(at, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error("CPU task cancelled while waiting for a thread"));
      };
      signal?.addEventListener("abort", leave, { once: true });
      this.#queue.push(take);
    });
  }

  #release(): void {
    this.#running--;
    this.#queue.shift()?.();
  }

  close(): Promise<void> {
    return this.#pool.destroy();
  }
}

/**
 * Piscina lowers a thread's priority with a native (napi-rs) addon loaded in that thread. A Rust addon loaded only in
 * worker threads is unloaded when the last of them exits, and may crash the process then (napi-rs/package-template#308,
 * rust-lang/rust#91979); loaded once in this thread too, it stays. Optional, as Piscina has it: without it, no nice.
 */
function keepNiceLoaded(): void {
  try {
    createRequire(require.resolve("piscina"))("@napi-rs/nice");
  } catch {
    // Not installed for this platform: Piscina starts its threads at normal priority.
  }
}

/**
 * A task's time limit, counted from the moment its thread starts it (written into `started` by the thread):
 * a thread still starting up (loading the rules) or being replaced does not spend the task's time.
 */
class TaskDeadline {
  readonly started = new SharedArrayBuffer(8);
  readonly #controller = new AbortController();
  #timer: NodeJS.Timeout;

  constructor(private readonly limitMs: number) {
    this.#timer = setTimeout(() => this.#check(), limitMs);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  #check(): void {
    const startedAt = new Float64Array(this.started)[0]!;
    const left = startedAt === 0 ? Math.min(this.limitMs, 250) : startedAt + this.limitMs - Date.now();
    if (startedAt !== 0 && left <= 0) this.#controller.abort();
    else this.#timer = setTimeout(() => this.#check(), Math.max(left, 10));
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

/** Runs tasks in this thread: for tests and benches of code that takes a CpuRunner, and for one-off tools. */
export const inlineCpu: CpuRunner = {
  async run(name, input, options) {
    // Loaded on first use: the rules and parsers are the threads' (about 2 s of CPU to load), and a process that
    // imports this package for its pool must not load them on its own event loop's thread.
    const { default: runCpuTask } = await import("./cpu-tasks");
    const result: unknown = await runCpuTask({ name, input, options });
    return result as never;
  },
};
