// Worker processes for fault tests and the soak: each group of queues runs as its own child process
// (`node --import tsx apps/worker/src/main.ts --queues …`, what an operator runs, or the same entry compiled to
// JavaScript as the image runs it), so a test can `kill -9` the process running a given stage, start it again, or
// send it SIGTERM and time its exit.
import { spawn, type ChildProcess } from "node:child_process";
import { inheritedEnv } from "@recall/config";
import fs from "node:fs";
import path from "node:path";
import { workerName, type QueueName, type QueueSet } from "@recall/pipeline";

const MAIN = path.resolve(__dirname, "..", "main.ts");
/** stderr lines kept per process, for a failure message. */
const TAIL_LINES = 40;

export interface FleetOptions {
  /** The workers' environment: DATABASE_URL, REDIS_URL, QUEUE_PREFIX, model settings, … (merged over process.env). */
  env: Record<string, string>;
  /** One process per group, named by the group's key. */
  groups: Record<string, readonly QueueName[]>;
  /** Each process's output is appended to `<logDir>/<group>.log` when set. */
  logDir?: string;
  /**
   * The worker entry compiled to JavaScript (test-support's compiledEntry), run with plain node: a test that starts
   * many processes (a kill each) saves the CPU tsx costs at every start. Default: main.ts under tsx.
   */
  compiled?: string;
}

export interface WorkerChild {
  group: string;
  queues: readonly QueueName[];
  child: ChildProcess;
  /** When this process was started (work it runs started after this). */
  startedAt: Date;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface UnexpectedExit {
  group: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string[];
}

export class WorkerFleet {
  readonly #children = new Map<string, WorkerChild>();
  readonly #expected = new Set<ChildProcess>();
  readonly #stderr = new Map<string, string[]>();
  /** Processes that exited without being told to: a worker that crashes on its own is a finding. */
  readonly unexpectedExits: UnexpectedExit[] = [];
  /** CPU seconds the processes stopped by this fleet had used (read from /proc just before each stop). */
  cpuSeconds = 0;
  /** Processes started so far. */
  started = 0;

  constructor(private readonly options: FleetOptions) {}

  get groups(): string[] {
    return Object.keys(this.options.groups);
  }

  startAll(): void {
    for (const group of this.groups) this.start(group);
  }

  current(group: string): WorkerChild {
    const child = this.#children.get(group);
    if (!child) throw new Error(`no worker process for ${group}`);
    return child;
  }

  start(group: string): WorkerChild {
    const queues = this.options.groups[group];
    if (!queues) throw new Error(`unknown worker group ${group}`);
    const command = this.options.compiled ? ["--enable-source-maps", this.options.compiled] : ["--import", "tsx", MAIN];
    const child = spawn(process.execPath, [...command, "--queues", queues.join(",")], {
      env: { ...inheritedEnv(), ...this.options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const log = this.options.logDir ? fs.createWriteStream(path.join(this.options.logDir, `${group}.log`), { flags: "a" }) : undefined;
    log?.write(`--- pid ${child.pid} started ${new Date().toISOString()}\n`);
    const tail: string[] = [];
    this.#stderr.set(group, tail);
    child.stdout!.on("data", (chunk: Buffer) => log?.write(chunk));
    child.stderr!.on("data", (chunk: Buffer) => {
      log?.write(chunk);
      tail.push(...chunk.toString().split("\n").filter(Boolean));
      tail.splice(0, Math.max(0, tail.length - TAIL_LINES));
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => {
        log?.end(`--- pid ${child.pid} exited code=${code} signal=${signal}\n`);
        if (!this.#expected.delete(child)) this.unexpectedExits.push({ group, code, signal, stderr: [...tail] });
        resolve({ code, signal });
      }),
    );
    const entry: WorkerChild = { group, queues, child, startedAt: new Date(), exited };
    this.started += 1;
    this.#children.set(group, entry);
    return entry;
  }

  /** SIGKILL: the process gets no chance to record anything. Resolves once it is gone. */
  async kill(group: string): Promise<WorkerChild> {
    const entry = this.current(group);
    this.#expected.add(entry.child);
    this.cpuSeconds += cpuSecondsOf(entry.child.pid);
    entry.child.kill("SIGKILL");
    await entry.exited;
    return entry;
  }

  /** kill -9, then a new process for the same queues. */
  async crash(group: string): Promise<WorkerChild> {
    const killed = await this.kill(group);
    this.start(group);
    return killed;
  }

  /** SIGTERM and the time until the process exited, with its exit status. */
  async terminate(group: string): Promise<{ ms: number; code: number | null; signal: NodeJS.Signals | null }> {
    const entry = this.current(group);
    this.#expected.add(entry.child);
    this.cpuSeconds += cpuSecondsOf(entry.child.pid);
    const started = Date.now();
    entry.child.kill("SIGTERM");
    const exit = await entry.exited;
    return { ms: Date.now() - started, ...exit };
  }

  /** The group whose live process BullMQ names `processedBy` (see workerName), if it is one of ours and alive. */
  groupOfWorker(processedBy: string | undefined): string | undefined {
    for (const entry of this.#children.values()) {
      if (
        entry.child.pid !== undefined &&
        workerName(entry.child.pid) === processedBy &&
        entry.child.exitCode === null &&
        entry.child.signalCode === null
      )
        return entry.group;
    }
    return undefined;
  }

  /** Waits until every live process has its workers connected (they show in BullMQ's worker list). */
  async ready(queues: QueueSet, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const entry of this.#children.values()) {
      const name = `:w:${workerName(entry.child.pid)}`;
      for (;;) {
        const workers = await queues[entry.queues[0]!].getWorkers();
        if (workers.some((w) => String(w["rawname"] ?? "").endsWith(name))) break;
        if (entry.child.exitCode !== null)
          throw new Error(`worker ${entry.group} exited while starting: ${this.stderrOf(entry.group).join("\n")}`);
        if (Date.now() > deadline) throw new Error(`worker ${entry.group} did not connect within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  stderrOf(group: string): string[] {
    return this.#stderr.get(group) ?? [];
  }

  /** Stops every process (SIGKILL: a test tears down; it does not test shutdown here). */
  async stopAll(): Promise<void> {
    const live = [...this.#children.values()].filter((c) => c.child.exitCode === null && c.child.signalCode === null);
    await Promise.all(live.map((c) => this.kill(c.group)));
  }
}

/** User and system CPU seconds of a live process (Linux /proc; 0 elsewhere or once it is gone). */
function cpuSecondsOf(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
