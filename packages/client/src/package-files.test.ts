// What `npm publish` would upload: `npm pack --dry-run --json` (prepack builds dist/) lists the
// built modules and their declarations for ES modules and CommonJS, the README and the licence,
// everything package.json points at, and nothing else: no tests, sources, maps or secrets. It runs
// on a copy of the package laid out as in the repository, so it never races another test's build.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const CLIENT = path.resolve(__dirname, "..");
const REPO = path.resolve(CLIENT, "../..");

let files: string[];
let work: string;

beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), "recall-client-files-"));
  const copy = path.join(work, "packages/client");
  mkdirSync(copy, { recursive: true });
  for (const f of ["package.json", "build.mjs", "tsconfig.build.json", "tsconfig.cjs.json", "README.md", "src"]) {
    cpSync(path.join(CLIENT, f), path.join(copy, f), { recursive: true });
  }
  for (const f of ["LICENSE", "NOTICE"]) cpSync(path.join(REPO, f), path.join(work, f));
  symlinkSync(path.join(CLIENT, "node_modules"), path.join(copy, "node_modules"));
  const run = spawnSync("npm", ["pack", "--dry-run", "--json"], {
    cwd: copy,
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false" },
  });
  if (run.status !== 0) throw new Error(`npm pack --dry-run failed:\n${run.stderr}`);
  files = (JSON.parse(run.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

test("the tarball holds both builds with their types, the README and the licence", () => {
  expect(files).toEqual(
    expect.arrayContaining([
      "package.json",
      "README.md",
      "LICENSE",
      "NOTICE",
      "dist/esm/index.js",
      "dist/esm/index.d.ts",
      "dist/cjs/index.js",
      "dist/cjs/index.d.ts",
      "dist/cjs/package.json",
    ]),
  );
});

test("everything package.json points at is in the tarball", () => {
  const manifest = JSON.parse(readFileSync(path.join(CLIENT, "package.json"), "utf8")) as Record<string, unknown>;
  const targets = JSON.stringify([manifest.main, manifest.types, manifest.exports]).match(/\.\/dist\/[^"]+/g) ?? [];
  expect(targets.length).toBeGreaterThanOrEqual(6);
  for (const target of targets) expect(files).toContain(target.slice(2));
  expect(manifest).toMatchObject({ license: "Apache-2.0", publishConfig: { access: "public" } });
});

test("no tests, sources, source maps, build state or secrets are packed", () => {
  const unwanted = files.filter(
    (f) =>
      /(^|\/)(src|node_modules)\//.test(f) ||
      /\.(test|spec)\.|\.map$|\.tsbuildinfo$|(^|\/)tsconfig|(^|\/)\.(env|npmrc)|secret|\.pem$|\.key$/i.test(f) ||
      !/^(dist\/|package\.json$|README\.md$|LICENSE$|NOTICE$)/.test(f),
  );
  expect(unwanted).toEqual([]);
});
