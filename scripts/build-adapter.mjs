// Builds dist/ of an adapter package (@recall/ai-sdk, @recall/langchain) for `pnpm pack` / `pnpm publish`, run as its
// prepack from the package's folder: ES module output with .d.ts, and the licence beside the README. The client is
// built first when it is not, as the adapter's declarations are checked against the client's published ones.
// Inside the workspace nothing reads dist/: tests and examples import src/ (tsconfig paths).
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const here = process.cwd();
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const run = (args, cwd) => {
  const result = spawnSync(process.execPath, args, { cwd, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

if (!existsSync(path.join(root, "packages/client/dist/esm/index.d.ts"))) run(["build.mjs"], path.join(root, "packages/client"));
rmSync(path.join(here, "dist"), { recursive: true, force: true });
run(
  [
    tsc,
    ...["--rootDir", "src", "--outDir", "dist", "--declaration", "--strict", "--noUncheckedIndexedAccess", "--skipLibCheck"],
    ...["--target", "ES2022", "--lib", "ES2023,DOM", "--module", "NodeNext", "--moduleResolution", "NodeNext", "--types", "node"],
    "src/index.ts",
  ],
  here,
);
for (const file of ["LICENSE", "NOTICE"]) copyFileSync(path.join(root, file), path.join(here, file));
