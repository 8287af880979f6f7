// The client cannot drift from the API: its checked-in types must be exactly what the generator
// makes from today's route declarations (apps/api/src/http/openapi-offline.test.ts proves that document
// is the one the server serves).
import { spawnSync } from "node:child_process";
import path from "node:path";

test("packages/client's generated types match the route declarations (pnpm client:generate --check)", () => {
  // A child process: openapi-typescript loads ESM-only dependencies that Jest's module runtime cannot require on Node 20.
  const run = spawnSync(process.execPath, [require.resolve("tsx/cli"), "infra/client-generate.ts", "--check"], {
    cwd: path.resolve(__dirname, ".."),
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`${run.stderr}${run.stdout}`.trim());
  expect(run.stdout).toContain("is up to date");
});
