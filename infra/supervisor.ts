// The process supervisor behind `npm start`: runs the API and the workers as child processes
// (each its own event loop, so neither stalls the other), restarts a child that exits on its own
// with a growing delay, forwards SIGTERM/SIGINT so each child drains as it does alone, and keeps
// one log stream: JSON lines gain a "process" field, other lines a "[name] " prefix.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export interface ChildSpec {
  /** Label in the log stream and in the supervisor's own lines: "api", "worker-1". */
  name: string;
  /** A TypeScript entry of the repo, run by node with tsx as an import hook. */
  entry: string;
  args?: string[];
  env: NodeJS.ProcessEnv;
}

export interface SupervisorOptions {
  cwd: string;
  /** The first restart waits this long; each quick failure doubles it, up to maxBackoffMs. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A child that stayed up this long starts again from initialBackoffMs. */
  resetAfterMs?: number;
  /** How long a child may take to exit after SIGTERM before it is killed. */
  stopTimeoutMs: number;
  write?: (line: string) => void;
}

interface Running {
  spec: ChildSpec;
  child?: ChildProcess;
  startedAt: number;
  backoffMs: number;
  restarts: number;
  timer?: NodeJS.Timeout;
}

export class Supervisor {
  readonly #children: Running[];
  #stopping = false;

  constructor(
    specs: ChildSpec[],
    private readonly options: SupervisorOptions,
  ) {
    this.#children = specs.map((spec) => ({ spec, startedAt: 0, backoffMs: options.initialBackoffMs ?? 1_000, restarts: 0 }));
  }

  start(): void {
    for (const running of this.#children) this.#spawn(running);
  }

  /** The children's pids and restart counts, by name (tests, logs). */
  status(): { name: string; pid: number | undefined; restarts: number }[] {
    return this.#children.map((r) => ({ name: r.spec.name, pid: r.child?.pid, restarts: r.restarts }));
  }

  /** Passes the signal on to every child and resolves once all have exited (killed past stopTimeoutMs). */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    this.#stopping = true;
    await Promise.all(this.#children.map((running) => this.#stopChild(running, signal)));
  }

  async #stopChild(running: Running, signal: NodeJS.Signals): Promise<void> {
    clearTimeout(running.timer);
    const child = running.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill(signal);
    const killer = setTimeout(() => child.kill("SIGKILL"), this.options.stopTimeoutMs);
    await exited;
    clearTimeout(killer);
  }

  #spawn(running: Running): void {
    const { spec } = running;
    const child = spawn(process.execPath, ["--import", "tsx", spec.entry, ...(spec.args ?? [])], {
      cwd: this.options.cwd,
      env: spec.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.child = child;
    running.startedAt = Date.now();
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => this.#write(labelled(spec.name, line)));
    }
    child.once("exit", (code, signal) => this.#exited(running, code, signal));
    this.#note(spec.name, `started (pid ${child.pid})`);
  }

  #exited(running: Running, code: number | null, signal: NodeJS.Signals | null): void {
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (this.#stopping) return this.#note(running.spec.name, `stopped (${how})`);
    const upMs = Date.now() - running.startedAt;
    const { initialBackoffMs = 1_000, maxBackoffMs = 30_000, resetAfterMs = 60_000 } = this.options;
    if (upMs >= resetAfterMs) running.backoffMs = initialBackoffMs;
    const delay = running.backoffMs;
    running.backoffMs = Math.min(delay * 2, maxBackoffMs);
    running.restarts++;
    this.#note(running.spec.name, `exited on its own (${how}) after ${upMs} ms; restarting in ${delay} ms`);
    running.timer = setTimeout(() => this.#spawn(running), delay);
  }

  #note(name: string, message: string): void {
    this.#write(JSON.stringify({ time: Date.now(), name: "recall-supervisor", process: "supervisor", child: name, msg: message }));
  }

  #write(line: string): void {
    (this.options.write ?? ((l: string) => process.stdout.write(`${l}\n`)))(line);
  }
}

/** A child's log line, labelled with the child's name: a "process" field in a JSON line, a prefix otherwise. */
export function labelled(name: string, line: string): string {
  if (line.startsWith("{") && line.endsWith("}")) {
    const rest = line.slice(1).trim() === "}" ? "}" : `,${line.slice(1)}`;
    return `{"process":${JSON.stringify(name)}${rest}`;
  }
  return `[${name}] ${line}`;
}
