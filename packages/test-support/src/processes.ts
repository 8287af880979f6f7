// Recall's own entry points (apps/api/src/main.ts, apps/worker/src/main.ts) as child processes,
// for tests and benchmarks that need real processes: several workers per queue, kills, restarts.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

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
  const child = spawn(process.execPath, ["--import", "tsx", entry, ...args], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
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
