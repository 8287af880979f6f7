#!/usr/bin/env node
// The image's build step (infra/Dockerfile): TypeScript compiled to JavaScript beside each source file
// (infra/tsconfig.image.json), then every workspace package's entry points moved from .ts to that .js, so
// `node apps/api/src/main.js` runs with no TypeScript loader. It rewrites files in place: run it on a copy of the
// repository (the image's build stage), never on a working tree.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (existsSync(path.join(root, ".git")) && !process.argv.includes("--in-place")) {
  console.error("build-image: this rewrites package.json files in place; run it on a copy (the image does), or pass --in-place");
  process.exit(1);
}

execFileSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", path.join(root, "infra/tsconfig.image.json")], {
  stdio: "inherit",
});

const toJs = (value) =>
  typeof value === "string"
    ? value.replace(/\.ts$/, ".js")
    : value && typeof value === "object"
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJs(v)]))
      : value;

let moved = 0;
for (const group of ["apps", "packages"]) {
  for (const name of readdirSync(path.join(root, group))) {
    const file = path.join(root, group, name, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8"));
    for (const field of ["main", "exports"]) if (manifest[field] !== undefined) manifest[field] = toJs(manifest[field]);
    for (const entry of [manifest.main, ...Object.values(manifest.exports ?? {})].filter(
      (e) => typeof e === "string" && e.endsWith(".js"),
    )) {
      if (!existsSync(path.join(root, group, name, entry)) && !entry.includes("/testing/")) {
        // Only what the image left out (test support, the client adapters) may lack its JavaScript.
        if (!["test-support", "client", "ai-sdk", "langchain"].includes(name)) throw new Error(`${group}/${name}: ${entry} was not built`);
      }
    }
    writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
    moved++;
  }
}
console.log(`build-image: compiled to JavaScript; entry points of ${moved} workspace packages now point at it`);
