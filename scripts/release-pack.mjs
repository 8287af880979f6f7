// pnpm release:pack: the npm-installable tarballs of @recall/client, @recall/ai-sdk and @recall/langchain, in
// release/ (or the folder given). `pnpm pack` runs each package's prepack (its build) and writes the version of each
// `workspace:` dependency into the packed package.json, which `npm pack` would leave as `workspace:^` for npm to refuse.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.resolve(process.argv[2] ?? path.join(root, "release"));
const PACKAGES = ["client", "ai-sdk", "langchain"];

mkdirSync(out, { recursive: true });
for (const old of readdirSync(out).filter((f) => /^recall-(client|ai-sdk|langchain)-.*\.tgz$/.test(f))) rmSync(path.join(out, old));
for (const name of PACKAGES) {
  const run = spawnSync("pnpm", ["pack", "--pack-destination", out], {
    cwd: path.join(root, "packages", name),
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
for (const file of readdirSync(out)
  .filter((f) => f.endsWith(".tgz"))
  .sort())
  console.log(path.join(out, file));
