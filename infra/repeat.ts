// pnpm test:repeat: runs the timing-sensitive test files many times (REPEAT, default 20) while two busy loops hold
// both cores, and says how many runs of each passed. A test that fails one run in twenty fails CI one stop in a few;
// this finds it before CI does. `pnpm test:repeat <paths…>` repeats those files instead; `--times N` sets the count.
// Each round is one Jest run of every file (one file at a time, as CI's slowest step runs them), so a round's
// failures are read from Jest's JSON report per file.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MissingServiceError, ensureServices } from "./local-services";

/**
 * The files whose outcome once depended on timing: a lease against a sleep, a scrape against a job's state, CPU-time
 * ratios, spans sent in batches, worker start-up against a deadline. Add a file here when a flake is found in it.
 */
export const TIMING_SENSITIVE = [
  "packages/pipeline/src/priority.test.ts",
  "packages/pipeline/src/worker-factory.test.ts",
  "packages/pipeline/src/chained-stages.test.ts",
  "packages/pipeline/src/webhooks/webhooks.test.ts",
  "packages/pipeline/src/stale-running.test.ts",
  "packages/pipeline/src/lost-jobs.test.ts",
  "packages/pipeline/src/worker-heartbeat.test.ts",
  "packages/extraction/src/cpu/cpu-pool.test.ts",
  "packages/extraction/src/documents/linear-cost.test.ts",
  "apps/worker/src/windowing/window-assembler.test.ts",
  "apps/api/src/e2e/metrics.e2e.test.ts",
  "apps/api/src/e2e/trace-export.e2e.test.ts",
  "apps/api/src/e2e/client-retries.e2e.test.ts",
];

const BUSY_LOOPS = 2;

interface Args {
  times: number;
  files: string[];
}

function parseArgs(argv: string[]): Args {
  let times = Number(process.env.REPEAT ?? 20);
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--times") times = Number(argv[++i]);
    else files.push(argv[i]!);
  }
  if (!Number.isInteger(times) || times < 1) throw new Error("--times (or REPEAT) must be a whole number of at least 1");
  return { times, files: files.length > 0 ? files : TIMING_SENSITIVE };
}

/** A process that spins one core until killed. */
function busyLoop(): ChildProcess {
  return spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
}

interface JestReport {
  testResults: { name: string; status: "passed" | "failed"; message: string }[];
}

async function main(): Promise<number> {
  const { times, files } = parseArgs(process.argv.slice(2));
  const root = path.resolve(__dirname, "..");
  const services = await ensureServices({ DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL });
  const scratch = mkdtempSync(path.join(tmpdir(), "recall-repeat-"));
  const loops = Array.from({ length: BUSY_LOOPS }, busyLoop);
  const passed = new Map(files.map((f) => [path.resolve(root, f), 0]));
  const failures: string[] = [];
  try {
    for (let round = 1; round <= times; round++) {
      const report = path.join(scratch, `round-${round}.json`);
      const jest = require.resolve("jest/bin/jest");
      spawnSync(process.execPath, [jest, "--runInBand", "--json", `--outputFile=${report}`, ...files], {
        cwd: root,
        stdio: ["ignore", "ignore", "inherit"],
        env: { ...process.env, DATABASE_URL: services.databaseUrl, REDIS_URL: services.redisUrl, NODE_ENV: "test", LOG_LEVEL: "silent" },
      });
      const results = readReport(report);
      for (const result of results) {
        if (result.status === "passed") passed.set(result.name, (passed.get(result.name) ?? 0) + 1);
        else failures.push(`round ${round}, ${path.relative(root, result.name)}:\n${result.message.slice(0, 4_000)}`);
      }
      const missing = [...passed.keys()].filter((f) => !results.some((r) => r.name === f));
      for (const file of missing) failures.push(`round ${round}, ${path.relative(root, file)}: no result (Jest did not run it)`);
      console.log(`round ${round}/${times}: ${results.filter((r) => r.status === "passed").length}/${files.length} files passed`);
    }
  } finally {
    for (const loop of loops) loop.kill("SIGKILL");
    rmSync(scratch, { recursive: true, force: true });
  }
  console.log(`\n${times} runs of each file under ${BUSY_LOOPS} busy loops:`);
  for (const [file, count] of passed) console.log(`  ${count === times ? "ok  " : "FAIL"} ${count}/${times}  ${path.relative(root, file)}`);
  for (const failure of failures) console.log(`\n${failure}`);
  return failures.length === 0 ? 0 : 1;
}

function readReport(file: string): JestReport["testResults"] {
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as JestReport).testResults;
  } catch {
    return [];
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(err instanceof MissingServiceError ? err.message : err);
    process.exit(1);
  },
);
