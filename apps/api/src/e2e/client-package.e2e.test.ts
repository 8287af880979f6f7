// @recall/client as an adopter gets it: `npm pack` (prepack builds dist/), the tarball installed into an
// empty project outside the workspace, run by plain Node as an ES module and as CommonJS against the real
// API, and a consumer of each kind type-checked by the workspace's tsc against the installed declarations.
// Its one dependency, openapi-fetch, is packed from the local store so the install needs no network.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { runCommand } from "@recall/test-support";
import { listen, type Listening } from "../testing/listen";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

const CLIENT_DIR = path.resolve(__dirname, "../../../../packages/client");
const NPM_ENV = { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };

let h: Harness;
let server: Listening;
let work: string;
let app: string;

beforeAll(async () => {
  h = await startHarness({}, []);
  server = await listen(h.app);
  work = mkdtempSync(path.join(os.tmpdir(), "recall-client-pack-"));
  app = path.join(work, "app");
  mkdirSync(app);
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "adopter", version: "1.0.0", private: true }));
}, 120_000);

afterAll(async () => {
  await server?.close();
  await h?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A package's folder in the local store, as the client's own node_modules resolves it. */
function storeDir(name: string, from: string): string {
  return path.dirname(realpathSync(createRequire(path.join(from, "package.json")).resolve(`${name}/package.json`)));
}

test("npm pack builds the package; the tarball installs offline into an empty project with its README and licence", async () => {
  await runCommand("npm", ["pack", "--pack-destination", work], { cwd: CLIENT_DIR, env: NPM_ENV, timeoutMs: 90_000 });
  const fetchDir = storeDir("openapi-fetch", CLIENT_DIR);
  for (const dir of [fetchDir, storeDir("openapi-typescript-helpers", fetchDir)]) {
    // A copy first: the store hard-links identical files, and npm packs a hard link's second name as an empty entry.
    const copy = path.join(work, "store", path.basename(dir));
    cpSync(dir, copy, { recursive: true, dereference: true });
    await runCommand("npm", ["pack", copy, "--ignore-scripts", "--pack-destination", work], { cwd: work, env: NPM_ENV });
  }
  const tarballs = readdirSync(work).filter((f) => f.endsWith(".tgz"));
  expect(tarballs).toEqual(expect.arrayContaining([expect.stringMatching(/^recall-client-.*\.tgz$/)]));

  await runCommand("npm", ["install", "--offline", "--no-package-lock", ...tarballs.map((t) => `../${t}`)], {
    cwd: app,
    env: NPM_ENV,
    timeoutMs: 90_000,
  });
  const installed = path.join(app, "node_modules/@recall/client");
  expect(readdirSync(installed).sort()).toEqual(["LICENSE", "NOTICE", "README.md", "dist", "package.json"]);
  expect(existsSync(path.join(installed, "dist/esm/index.d.ts")) && existsSync(path.join(installed, "dist/cjs/index.d.ts"))).toBe(true);
}, 180_000);

// The same calls from both module systems: a context (admin), a session, and a refused turn as RecallError naming the field.
const CALLS = `
  const admin = new RecallClient({ baseUrl: process.env.RECALL_URL, adminKey: process.env.ADMIN_KEY });
  const created = await admin.admin.contexts.create({ name: "adopter" });
  const recall = admin.withContext(created.context_id, created.api_key);
  const { session_id } = await recall.sessions.create();
  const err = await recall.turns.post(session_id, { role: "user", content: "" }).catch((e) => e);
  console.log(JSON.stringify({ session: typeof session_id, recallError: err instanceof RecallError, status: err.status, field: err.errors[0]?.field }));
`;
const EXPECTED = { session: "string", recallError: true, status: 400, field: "body.content" };

test.each([
  ["an ES module (import)", "probe.mjs", `import { RecallClient, RecallError } from "@recall/client";\n${CALLS}`],
  ["CommonJS (require)", "probe.cjs", `const { RecallClient, RecallError } = require("@recall/client");\n(async () => {${CALLS}})();`],
])("plain Node loads the installed package as %s and calls the real API", async (_kind, file, source) => {
  writeFileSync(path.join(app, file), source);
  const run = await runCommand(process.execPath, [file], {
    cwd: app,
    env: { PATH: process.env.PATH, RECALL_URL: server.url, ADMIN_KEY },
  });
  expect(run.stderr).toBe("");
  expect(JSON.parse(run.stdout)).toEqual(EXPECTED);
});

test("a consumer type-checks against the installed declarations, as an ES module and as CommonJS", async () => {
  // A wrong call must fail to compile in both: types that silently became `any` would let it through.
  const body = `
const recall = new RecallClient({ baseUrl: "http://127.0.0.1:8080", contextId: "ctx", apiKey: "rk_key" });
export const profile: Promise<Profile> = recall.profile({ org: "acme", user: "alice" });
// @ts-expect-error a role the API does not know
export const wrong = recall.turns.post("session", { role: "robot", content: "hi" });
export const isError = (e: unknown): e is RecallError => e instanceof RecallError;
`;
  writeFileSync(path.join(app, "esm.mts"), `import { RecallClient, RecallError, type Profile } from "@recall/client";\n${body}`);
  writeFileSync(path.join(app, "cjs.cts"), `import { RecallClient, RecallError, type Profile } from "@recall/client";\n${body}`);
  const compilerOptions = {
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    noEmit: true,
    lib: ["ES2023", "DOM"],
    types: [],
  };
  writeFileSync(path.join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["esm.mts", "cjs.cts"] }));
  const tsc = require.resolve("typescript/bin/tsc");
  await runCommand(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: app, timeoutMs: 60_000 });
});
