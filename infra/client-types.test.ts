// The client cannot drift from the API: its checked-in types must be exactly what the generator
// makes from today's route declarations (apps/api/src/http/openapi-offline.test.ts proves that document
// is the one the server serves).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

test("packages/client's generated types match the route declarations (pnpm client:generate --check)", () => {
  // A child process: openapi-typescript loads ESM-only dependencies that Jest's module runtime cannot require on Node 20.
  const run = spawnSync(process.execPath, [require.resolve("tsx/cli"), "infra/client-generate.ts", "--check"], {
    cwd: path.resolve(__dirname, ".."),
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`${run.stderr}${run.stdout}`.trim());
  expect(run.stdout).toContain("is up to date");
});

test("@recall/client builds to ESM with declarations that plain Node imports", () => {
  const clientDir = path.resolve(__dirname, "../packages/client");
  const outDir = mkdtempSync(path.join(clientDir, ".build-check-"));
  try {
    const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json", "--outDir", outDir], {
      cwd: clientDir,
      encoding: "utf8",
    });
    if (tsc.status !== 0) throw new Error(`${tsc.stdout}${tsc.stderr}`);
    expect(readFileSync(path.join(outDir, "index.d.ts"), "utf8")).toContain("RecallClient");
    const probe = `const m = await import(${JSON.stringify(pathToFileURL(path.join(outDir, "index.js")).href)});
      console.log(JSON.stringify([typeof m.RecallClient, new m.RecallError(new Response("{}", { status: 418 }), "GET", {}).status]));`;
    const node = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: clientDir, encoding: "utf8" });
    expect(node.stderr).toBe("");
    expect(JSON.parse(node.stdout)).toEqual(["function", 418]);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});
