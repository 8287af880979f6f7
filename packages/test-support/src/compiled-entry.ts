// Recall's TypeScript compiled to JavaScript for tests that start it many times: a worker process started under tsx
// cost about twice the CPU of plain node on the same code (the crash test starts one per kill), and each CPU-pool
// thread (two per worker, in every test file with a harness) registered tsx again before loading the tasks.
// esbuild bundles the workspace's TypeScript into one file per entry; every installed package stays a plain `require`
// of the file Node resolves for it from the importing source, so pg, ioredis and BullMQ are loaded (and patched by
// the tracing instrumentations) as before. Each bundled file keeps its source file's view of the disk: `__dirname`,
// `__filename` and `require.resolve` are the source's (the skills, migrations, dashboard page, PDF child), except
// where the path names a file this build emits beside the bundle (BUILT_BESIDE).
import fs from "node:fs";
import { isBuiltin } from "node:module";
import os from "node:os";
import path from "node:path";
import type { Plugin } from "esbuild";
import { currentTestRunId } from "./databases";

const REPO_ROOT = path.resolve(__dirname, "../../..");
const CPU_DIR = path.join(REPO_ROOT, "packages/extraction/src/cpu");
const CPU_TASKS = path.join(CPU_DIR, "cpu-tasks.ts");
/** Where global setup's build of the CPU tasks is, for the test files of its run. */
const CPU_TASKS_ENV = "RECALL_TEST_CPU_TASKS";
/** A run's builds are directories `<tmp>/recall-test-<run id>-…`. */
const RUN_BUILD_PREFIX = "recall-test-";

/**
 * Files whose `__dirname` must be the bundle's directory: the CPU pool starts its threads from `cpu-thread.cjs` beside
 * it, which loads the compiled `cpu-tasks.js` there (as in the image, infra/build-image.mjs) instead of registering tsx;
 * the worker's tracing starts only when `main` beside it is the entry point.
 */
const BUILT_BESIDE = new Set([path.join(CPU_DIR, "cpu-pool.ts"), path.join(REPO_ROOT, "apps/worker/src/tracing-preload.ts")]);

const builds = new Map<string, Promise<string>>();

/**
 * The JavaScript of a TypeScript entry of the repository (a path from its root), to run with plain `node`
 * (`--enable-source-maps` for stacks that name the sources). Inside a `jest` run it is built once for the run, by the
 * first test file that asks, and removed with the run's other builds (runBuildDirs); elsewhere (a benchmark), once
 * per process, removed when it exits.
 */
export function compiledEntry(entry: string): Promise<string> {
  let built = builds.get(entry);
  if (!built) {
    built = buildEntry(entry);
    builds.set(entry, built);
    built.catch(() => builds.delete(entry));
  }
  return built;
}

async function buildEntry(entry: string): Promise<string> {
  const runId = currentTestRunId();
  const shared = runId && path.join(os.tmpdir(), `${RUN_BUILD_PREFIX}${runId}-${entry.replace(/\.ts$/, "").replace(/[^\w]+/g, "-")}`);
  if (shared && fs.existsSync(path.join(shared, "main.js"))) return path.join(shared, "main.js");
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), "recall-entry-"));
  await bundle({ main: path.join(REPO_ROOT, entry), "cpu-tasks": CPU_TASKS }, outdir);
  fs.copyFileSync(path.join(CPU_DIR, "cpu-thread.cjs"), path.join(outdir, "cpu-thread.cjs"));
  if (!shared) {
    process.once("exit", () => fs.rmSync(outdir, { recursive: true, force: true }));
    return path.join(outdir, "main.js");
  }
  // Published whole by a rename; a test file that built the same entry at the same time keeps the first one published.
  try {
    fs.renameSync(outdir, shared);
  } catch {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
  return path.join(shared, "main.js");
}

/**
 * Global setup: the CPU pool's tasks compiled once for the whole run (CpuPoolOptions.tasksModule), in a directory
 * named by the run; test files find it with compiledCpuTasks().
 */
export async function buildCpuTasksForRun(runId: string): Promise<void> {
  const outdir = path.join(os.tmpdir(), `${RUN_BUILD_PREFIX}${runId}-cpu-tasks`);
  fs.rmSync(outdir, { recursive: true, force: true });
  await bundle({ "cpu-tasks": CPU_TASKS }, outdir);
  process.env[CPU_TASKS_ENV] = path.join(outdir, "cpu-tasks.js");
}

/** This run's compiled CPU tasks (global setup built them), or undefined: the threads then load the source under tsx. */
export function compiledCpuTasks(): string | undefined {
  const built = process.env[CPU_TASKS_ENV];
  return built && currentTestRunId() && fs.existsSync(built) ? built : undefined;
}

/** Removes what run `runId` built (global teardown, and infra/test.ts after a run that was interrupted). */
export function removeRunBuilds(runId: string): void {
  const prefix = `${RUN_BUILD_PREFIX}${runId}-`;
  for (const name of fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(prefix))) {
    fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
  }
}

async function bundle(entryPoints: Record<string, string>, outdir: string): Promise<void> {
  // Loaded here: only global setup and the files that start processes pay for esbuild.
  const esbuild = await import("esbuild");
  await esbuild.build({
    entryPoints,
    outdir,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    sourcemap: "linked",
    logLevel: "error",
    plugins: [sourceView],
  });
}

const sourceView: Plugin = {
  name: "recall-source-view",
  setup(build) {
    // A package: the file Node itself resolves from the importer (exports conditions for require), required from there
    // at run time; a workspace package (its exports name .ts sources) is bundled.
    build.onResolve({ filter: /^[^./]/ }, ({ path: spec, resolveDir }) => {
      if (isBuiltin(spec)) return { path: spec, external: true };
      const resolved = require.resolve(spec, { paths: [resolveDir] });
      return resolved.endsWith(".ts") ? { path: resolved } : { path: resolved, external: true };
    });
    build.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
      const dir = path.dirname(file);
      let source = await fs.promises.readFile(file, "utf8");
      if (!BUILT_BESIDE.has(file)) {
        source = source.replace(/\b__dirname\b/g, JSON.stringify(dir)).replace(/\b__filename\b/g, JSON.stringify(file));
      }
      source = source.replace(/\brequire\.resolve\(\s*(["'])([^"']+)\1\s*\)/g, (_, _quote: string, spec: string) =>
        JSON.stringify(require.resolve(spec, { paths: [dir] })),
      );
      return { contents: source, loader: "ts" };
    });
  },
};
