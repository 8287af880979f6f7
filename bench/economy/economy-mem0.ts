// The mem0 peer for pnpm bench:economy: mem0ai's `Memory` (mem0ai/oss) against the counting
// server. mem0ai and its SQLite driver (better-sqlite3, a native module) are not workspace
// dependencies: they are installed on first use into .data/peers/mem0 (gitignored) with npm
// and loaded from there, so `pnpm install --frozen-lockfile` never compiles them.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { GateTurn } from "../shared/gate-locomo";

export const MEM0_VERSION = "3.3.1";
const PACKAGES = [`mem0ai@${MEM0_VERSION}`, "better-sqlite3@12"];
const INSTALL_TIMEOUT_MS = 20 * 60_000;

/** The vector size both peers ask for (text-embedding-3-small's own). */
export const EMBEDDING_DIMENSIONS = 1_536;

interface Mem0Memory {
  add(messages: { role: string; content: string }[], options: { userId: string }): Promise<unknown>;
}
type Mem0MemoryClass = new (config: Record<string, unknown>) => Mem0Memory;

export interface PeerRun {
  turns: number;
  wallMs: number;
}

/**
 * mem0ai's Memory class, installing it into `dir` first when it is not there. Undefined (with
 * the reason printed) when npm cannot install it, e.g. without a registry.
 */
export function loadMem0(dir: string): Mem0MemoryClass | undefined {
  if (!installed(dir)) {
    console.log(`mem0: installing ${PACKAGES.join(" ")} into ${dir} (once; better-sqlite3 may compile for a few minutes) …`);
    fs.mkdirSync(dir, { recursive: true });
    const manifest = path.join(dir, "package.json");
    if (!fs.existsSync(manifest)) fs.writeFileSync(manifest, JSON.stringify({ name: "recall-bench-peer-mem0", private: true }, null, 2));
    const npm = spawnSync("npm", ["install", "--no-audit", "--no-fund", ...PACKAGES], {
      cwd: dir,
      stdio: "inherit",
      timeout: INSTALL_TIMEOUT_MS,
    });
    if (npm.status !== 0 || !installed(dir)) {
      console.log(
        `mem0: could not install ${PACKAGES.join(" ")} (npm ${npm.error?.message ?? `exit ${npm.status}`}); measuring Recall only.`,
      );
      return undefined;
    }
  }
  return (peerRequire(dir)("mem0ai/oss") as { Memory: Mem0MemoryClass }).Memory;
}

function installed(dir: string): boolean {
  try {
    // mem0ai's `exports` leave out its package.json, so it is read as a file.
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "node_modules/mem0ai/package.json"), "utf8")) as { version: string };
    peerRequire(dir)("better-sqlite3"); // throws when the native module was not built
    return manifest.version === MEM0_VERSION;
  } catch {
    return false;
  }
}

const peerRequire = (dir: string) => createRequire(path.join(dir, "package.json"));

export interface Mem0Options {
  Memory: Mem0MemoryClass;
  /** The counting server's OpenAI baseURL. */
  baseUrl: string;
  /** mem0's own default keeps a message history (its last 10 messages go into every prompt); off: disableHistory. */
  history: boolean;
}

/** One add() per turn, as `speaker: text` from the user, all under one userId (the conversation). */
export async function runMem0(turns: GateTurn[], userId: string, { Memory, baseUrl, history }: Mem0Options): Promise<PeerRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recall-economy-mem0-"));
  try {
    const memory = new Memory(mem0Config(baseUrl, dir, history));
    const started = performance.now();
    for (const turn of turns) await memory.add([{ role: "user", content: `${turn.speaker}: ${turn.text}` }], { userId });
    return { turns: turns.length, wallMs: performance.now() - started };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function mem0Config(baseURL: string, dir: string, history: boolean): Record<string, unknown> {
  const connection = { apiKey: "economy-no-key", baseURL };
  return {
    llm: { provider: "openai", config: { ...connection, model: "economy-mem0-llm" } },
    embedder: { provider: "openai", config: { ...connection, model: "economy-embedding", embeddingDims: EMBEDDING_DIMENSIONS } },
    vectorStore: {
      provider: "memory",
      config: { collectionName: "economy", dimension: EMBEDDING_DIMENSIONS, dbPath: path.join(dir, "vectors.db") },
    },
    ...(history ? { historyDbPath: path.join(dir, "history.db") } : { disableHistory: true }),
  };
}

/** mem0 reads these when its module loads: no telemetry to the internet, its config file kept out of ~. */
export function isolateMem0Environment(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "recall-economy-mem0-home-"));
  process.env.MEM0_TELEMETRY = "false";
  process.env.MEM0_DIR = home;
  return home;
}
