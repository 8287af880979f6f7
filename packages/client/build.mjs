// Builds dist/ for the published package (run by `npm pack` / `pnpm pack` through prepack):
// dist/esm (ES modules) and dist/cjs (CommonJS, marked so by its own package.json), each with
// its .d.ts, and the licence beside the README. Inside the workspace nothing reads dist/: the
// apps, tests and examples import src/ (tsconfig paths, Jest's moduleNameMapper).
import { spawnSync } from "node:child_process";
import { copyFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

rmSync(path.join(here, "dist"), { recursive: true, force: true });
for (const project of ["tsconfig.build.json", "tsconfig.cjs.json"]) {
  const run = spawnSync(process.execPath, [tsc, "-p", project], { cwd: here, stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
writeFileSync(path.join(here, "dist/cjs/package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
for (const file of ["LICENSE", "NOTICE"]) copyFileSync(path.join(here, "../..", file), path.join(here, file));
