// Recall's own entry points (apps/api/src/main.ts, apps/worker/src/main.ts) as child processes,
// for tests and benchmarks that need real processes: several workers per queue, kills, restarts.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { compiledEntry } from "./compiled-entry";

const REPO_ROOT = path.resolve(__dirname, "../../..");

export interface SpawnedEntry {
  child: ChildProcess;
  /** What the process wrote to stdout and stderr so far (for a failing test's message). */
  output(): string;
}

/**
 * Runs a TypeScript entry of the repo in node itself (tsx as an import hook, not a wrapper
 * process), so the pid is the process's own: signals and memory readings reach it directly.
 */
export function spawnEntry(entry: string, args: string[], env: NodeJS.ProcessEnv, { keepOutput = 200_000 } = {}): SpawnedEntry {
  return spawnNode(["--import", "tsx", entry, ...args], env, keepOutput);
}

/**
 * The same entry compiled to JavaScript (compiled-entry.ts) and run by plain node, as the image runs it: a start costs
 * about half the CPU of one under tsx, for tests that start (or restart) processes.
 */
export async function spawnCompiledEntry(
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  { keepOutput = 200_000 } = {},
): Promise<SpawnedEntry> {
  return spawnNode(["--enable-source-maps", await compiledEntry(entry), ...args], env, keepOutput);
}

function spawnNode(args: string[], env: NodeJS.ProcessEnv, keepOutput: number): SpawnedEntry {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-keepOutput);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  child.once("exit", () => process.removeListener("exit", kill));
  return { child, output: () => output };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
export async function stopChild(child: ChildProcess | undefined, graceMs = 10_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end without blocking the event loop (the test's own server must keep
 * answering it), killed past `timeoutMs`. Rejects, with everything it printed, when it exits non-zero.
 */
export function runCommand(
  command: string,
  args: string[],
  { cwd, env = process.env, timeoutMs = 60_000 }: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once("close", (status, signal) => {
      clearTimeout(timer);
      const result = { status, stdout, stderr };
      if (status === 0) return resolve(result);
      const why = signal ? `was killed (${signal}${signal === "SIGKILL" ? `, past ${timeoutMs} ms` : ""})` : `exited ${status}`;
      reject(new Error(`${command} ${args.join(" ")} ${why}\n${stdout}${stderr}`.trim()));
    });
  });
}
