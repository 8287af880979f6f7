// Private Redis and Postgres servers on their own ports, for tests that stop, restart or flush
// them (the shared 5432/6379 servers must never be touched) and for `pnpm start` / `pnpm test`
// on machines without servers (infra/local-services.ts). Redis here keeps nothing on disk
// (`--save "" --appendonly no`): a restart is a Redis that lost everything.
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { stopChild } from "./processes";

/** An executable on PATH, or in the newest /usr/lib/postgresql/<version>/bin. */
export function findBinary(name: string): string | undefined {
  const which = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  const pgRoot = "/usr/lib/postgresql";
  if (existsSync(pgRoot)) {
    for (const version of readdirSync(pgRoot).sort().reverse()) {
      const candidate = path.join(pgRoot, version, "bin", name);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

function requireBinary(name: string): string {
  const found = findBinary(name);
  if (!found) throw new Error(`${name} is not installed (needed to run a private server)`);
  return found;
}

/** Whether something accepts TCP connections there. */
export function portAnswers(host: string, port: number, timeoutMs = 1_500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

export async function waitForPort(port: number, up: boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await portAnswers("127.0.0.1", port, 500)) !== up) {
    if (Date.now() > deadline) throw new Error(`port ${port} did not ${up ? "open" : "close"} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A port nothing listens on: the first free one in [from, to], or any the kernel hands out. */
export async function freePort(from?: number, to?: number): Promise<number> {
  if (from !== undefined && to !== undefined) {
    const start = from + Math.floor(Math.random() * (to - from + 1));
    for (let i = 0; i <= to - from; i++) {
      const port = from + ((start - from + i) % (to - from + 1));
      if ((await canBind(port)) && !(await portAnswers("127.0.0.1", port, 200))) return port;
    }
    throw new Error(`no free port in ${from}-${to}`);
  }
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const isRoot = () => process.getuid?.() === 0;

/** Postgres refuses to run as root: as root, its commands run as the `postgres` user. */
function asPostgresUser(binary: string, args: string[]): [string, string[]] {
  return isRoot() ? ["runuser", ["-u", "postgres", "--", binary, ...args]] : [binary, args];
}

/** redis-server's arguments; `persist` keeps an append-only file in `dir` (pnpm start), else nothing survives a restart. */
export function redisServerArgs(port: number, dir: string, { persist = false, extra = [] as string[] } = {}): string[] {
  const persistence = persist ? ["--appendonly", "yes"] : ["--save", "", "--appendonly", "no"];
  return ["--bind", "127.0.0.1", "--port", String(port), "--dir", dir, ...persistence, ...extra];
}

/** Creates a Postgres data directory (trust auth, UTF-8) owned by whoever will run the server. */
export function initPostgres(dataDir: string, options: { quiet?: boolean } = {}): void {
  if (isRoot()) chownSync(dataDir, postgresUid(), postgresGid());
  const [cmd, args] = asPostgresUser(requireBinary("initdb"), ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
  execFileSync(cmd, args, { stdio: options.quiet ? "ignore" : "inherit" });
}

/** pg_ctl start (waits until it accepts connections), listening on 127.0.0.1:port with its socket in the data directory. */
export function startPostgres(dataDir: string, port: number, logFile: string, options: { quiet?: boolean } = {}): void {
  const opts = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dataDir}`;
  const [cmd, args] = asPostgresUser(requireBinary("pg_ctl"), ["-D", dataDir, "-o", opts, "-l", logFile, "-w", "start"]);
  execFileSync(cmd, args, { stdio: options.quiet ? "ignore" : "inherit" });
}

function stopPostgres(dataDir: string, mode: "fast" | "immediate"): void {
  const [cmd, args] = asPostgresUser(requireBinary("pg_ctl"), ["-D", dataDir, "-m", mode, "-w", "stop"]);
  execFileSync(cmd, args, { stdio: "ignore" });
}

function idOf(flag: "-u" | "-g"): number {
  return Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
}
const postgresUid = () => idOf("-u");
const postgresGid = () => idOf("-g");

function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A child process that is killed (and its directory removed) when this process exits, however the test ends. */
function spawnOwned(cmd: string, args: string[], dir: string): ChildProcess {
  const child = spawn(cmd, args, { stdio: "ignore" });
  const kill = () => {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", kill);
  child.once("exit", () => process.removeListener("exit", kill));
  return child;
}

/** One redis-server without persistence: stopped and started again on the same port, it starts empty. */
export class PrivateRedis {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly extraArgs: string[],
  ) {}

  static async start(options: { port?: number; extraArgs?: string[] } = {}): Promise<PrivateRedis> {
    const redis = new PrivateRedis(options.port ?? (await freePort()), tempDir("recall-redis-"), options.extraArgs ?? []);
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) return;
    this.child = spawnOwned(requireBinary("redis-server"), redisServerArgs(this.port, this.dir, { extra: this.extraArgs }), this.dir);
    await waitForPort(this.port, true);
  }

  async stop(): Promise<void> {
    await stopChild(this.child, 5_000);
    this.child = undefined;
    await waitForPort(this.port, false);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** FLUSHALL through redis-cli, so no client of the code under test is involved. */
  flushAll(): void {
    this.cli("FLUSHALL");
  }

  /** A redis-cli command against this server; its output, trimmed. */
  cli(...args: string[]): string {
    return execFileSync(requireBinary("redis-cli"), ["-p", String(this.port), ...args], { encoding: "utf8" }).trim();
  }

  async close(): Promise<void> {
    await stopChild(this.child, 5_000);
    this.child = undefined;
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A Postgres 15 cluster of its own under /tmp (trust auth, user postgres) on a free port in 155xx. */
export class PrivatePostgres {
  private running = false;
  /** pg_ctl starts a daemon: stopped when this process exits, however the test ends. */
  private readonly stopOnExit = () => {
    if (this.running) stopPostgres(this.dataDir, "immediate");
    rmSync(this.dataDir, { recursive: true, force: true });
  };

  private constructor(
    readonly port: number,
    readonly dataDir: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const dir = tempDir("recall-pg-");
    const pg = new PrivatePostgres(await freePort(15_500, 15_599), dir);
    initPostgres(dir, { quiet: true });
    await pg.start();
    return pg;
  }

  /**
   * A streaming standby of `primary` (pg_basebackup -R: a base backup that starts as a hot standby following it), on a
   * port of its own; `applyDelayMs` holds back replay (recovery_min_apply_delay) as a slow replica would.
   */
  static async standbyOf(primary: PrivatePostgres, options: { applyDelayMs?: number } = {}): Promise<PrivatePostgres> {
    const dir = tempDir("recall-pg-standby-");
    if (isRoot()) chownSync(dir, postgresUid(), postgresGid());
    const [cmd, args] = asPostgresUser(requireBinary("pg_basebackup"), [
      "-D",
      dir,
      "-d",
      `host=127.0.0.1 port=${primary.port} user=postgres`,
      "-R",
      "-X",
      "stream",
      "-c",
      "fast",
    ]);
    execFileSync(cmd, args, { stdio: "ignore" });
    const standby = new PrivatePostgres(await freePort(15_500, 15_599), dir);
    standby.setApplyDelay(options.applyDelayMs ?? 0);
    await standby.start();
    return standby;
  }

  /** A standby's replay delay (recovery_min_apply_delay), applied by a reload when it runs. */
  setApplyDelay(ms: number): void {
    appendFileSync(path.join(this.dataDir, "postgresql.auto.conf"), `recovery_min_apply_delay = '${ms}ms'\n`);
    if (!this.running) return;
    const [cmd, args] = asPostgresUser(requireBinary("pg_ctl"), ["-D", this.dataDir, "reload"]);
    execFileSync(cmd, args, { stdio: "ignore" });
  }

  /** A standby made a primary of its own (pg_ctl promote): it leaves recovery and stops following. */
  promote(): void {
    const [cmd, args] = asPostgresUser(requireBinary("pg_ctl"), ["-D", this.dataDir, "-w", "promote"]);
    execFileSync(cmd, args, { stdio: "ignore" });
  }

  /** A URL for `database` on this server (the maintenance database by default). */
  url(database = "postgres"): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    if (this.running) return;
    startPostgres(this.dataDir, this.port, path.join(this.dataDir, "server.log"), { quiet: true });
    this.running = true;
    process.removeListener("exit", this.stopOnExit);
    process.once("exit", this.stopOnExit);
    await waitForPort(this.port, true);
  }

  /** `fast` ends every session and shuts down cleanly; `immediate` is a crash (recovery on the next start). */
  async stop(mode: "fast" | "immediate" = "fast"): Promise<void> {
    if (!this.running) return;
    stopPostgres(this.dataDir, mode);
    this.running = false;
    await waitForPort(this.port, false);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async close(): Promise<void> {
    try {
      await this.stop("immediate");
      process.removeListener("exit", this.stopOnExit);
    } finally {
      rmSync(this.dataDir, { recursive: true, force: true });
    }
  }
}

/** Three (by default) redis-server nodes in cluster mode, every slot assigned, no replicas. */
export class PrivateRedisCluster {
  private constructor(readonly nodes: PrivateRedis[]) {}

  static async start(size = 3): Promise<PrivateRedisCluster> {
    const nodes: PrivateRedis[] = [];
    try {
      for (let i = 0; i < size; i++) {
        const port = await freePort();
        const extraArgs = ["--cluster-enabled", "yes", "--cluster-config-file", `nodes-${port}.conf`, "--cluster-node-timeout", "5000"];
        nodes.push(await PrivateRedis.start({ port, extraArgs }));
      }
      const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
      execFileSync(requireBinary("redis-cli"), ["--cluster", "create", ...addresses, "--cluster-replicas", "0", "--cluster-yes"], {
        stdio: "ignore",
      });
      const cluster = new PrivateRedisCluster(nodes);
      await cluster.waitUntilReady();
      return cluster;
    } catch (err) {
      await Promise.all(nodes.map((n) => n.close()));
      throw err;
    }
  }

  /** REDIS_URL for this cluster: `redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`. */
  get url(): string {
    return `redis-cluster://${this.nodes.map((n) => `127.0.0.1:${n.port}`).join(",")}`;
  }

  private async waitUntilReady(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = this.nodes.map((n) => n.cli("CLUSTER", "INFO"));
      if (states.every((s) => s.includes("cluster_state:ok"))) return;
      if (Date.now() > deadline) throw new Error("the Redis Cluster did not reach cluster_state:ok");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.close()));
  }
}
