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

/**
 * Files whose `__dirname` must be the bundle's directory: the CPU pool starts its threads from `cpu-thread.cjs` beside
 * it, which loads the compiled `cpu-tasks.js` there (as in the image, infra/build-image.mjs) instead of registering tsx;
 * the worker's tracing starts only when `main` beside it is the entry point.
 */
const BUILT_BESIDE = new Set([path.join(CPU_DIR, "cpu-pool.ts"), path.join(REPO_ROOT, "apps/worker/src/tracing-preload.ts")]);

const builds = new Map<string, Promise<string>>();

/**
 * The JavaScript of a TypeScript entry of the repository (a path from its root), built on first use in this process
 * and removed when it exits. Run it with plain `node` (`--enable-source-maps` for stacks that name the sources).
 */
export function compiledEntry(entry: string): Promise<string> {
  let built = builds.get(entry);
  if (!built) {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), "recall-entry-"));
    process.once("exit", () => fs.rmSync(outdir, { recursive: true, force: true }));
    built = bundle({ main: path.join(REPO_ROOT, entry), "cpu-tasks": CPU_TASKS }, outdir).then(() => {
      fs.copyFileSync(path.join(CPU_DIR, "cpu-thread.cjs"), path.join(outdir, "cpu-thread.cjs"));
      return path.join(outdir, "main.js");
    });
    builds.set(entry, built);
    built.catch(() => builds.delete(entry));
  }
  return built;
}

/**
 * Global setup: the CPU pool's tasks compiled once for the whole run (CpuPoolOptions.tasksModule), in a directory
 * named by the run; test files find it with compiledCpuTasks(). Answers the directory, for global teardown to remove.
 */
export async function buildCpuTasksForRun(runId: string): Promise<string> {
  const outdir = cpuTasksDir(runId);
  fs.rmSync(outdir, { recursive: true, force: true });
  await bundle({ "cpu-tasks": CPU_TASKS }, outdir);
  process.env[CPU_TASKS_ENV] = path.join(outdir, "cpu-tasks.js");
  return outdir;
}

export const cpuTasksDir = (runId: string) => path.join(os.tmpdir(), `recall-test-${runId}-cpu-tasks`);

/** This run's compiled CPU tasks (global setup built them), or undefined: the threads then load the source under tsx. */
export function compiledCpuTasks(): string | undefined {
  const built = process.env[CPU_TASKS_ENV];
  return built && currentTestRunId() && fs.existsSync(built) ? built : undefined;
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
