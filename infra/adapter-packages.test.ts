// The adapters as a release ships them: `pnpm pack` (prepack builds dist/ with scripts/build-adapter.mjs) gives a
// tarball holding the built module, its declarations, the README and the licence, and nothing of the workspace:
// the client is named by version, never `workspace:`; the framework is a peer dependency.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(__dirname, "..");
let out: string;

beforeAll(() => {
  out = mkdtempSync(path.join(os.tmpdir(), "recall-adapters-"));
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

// `ai` 6 and 7: on Node 20 npm installs ai 6 (ai 7 declares Node 22); the middleware is of the shape both take.
const BUILT = {
  "ai-sdk": ["index", "recall-middleware"],
  langchain: ["context-retriever", "degrade", "index"],
};

test.each([
  ["ai-sdk", { ai: "^6.0.0 || ^7.0.0" }],
  ["langchain", { "@langchain/core": "^1.0.0" }],
] as const)(
  "@recall/%s packs with dist, types, README and licence, naming its dependencies by version",
  (name, peers) => {
    execFileSync("pnpm", ["pack", "--pack-destination", out], { cwd: path.join(root, "packages", name), stdio: "pipe" });
    const tarball = path.join(
      out,
      readdirSync(out).find((f) => f.startsWith(`recall-${name}-`))!,
    );
    const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n").sort();
    expect(files).toEqual(
      [...BUILT[name].flatMap((f) => [`dist/${f}.d.ts`, `dist/${f}.js`]), "LICENSE", "NOTICE", "package.json", "README.md"]
        .map((f) => `package/${f}`)
        .sort(),
    );
    const manifest = JSON.parse(execFileSync("tar", ["-xOzf", tarball, "package/package.json"], { encoding: "utf8" }));
    expect(manifest.dependencies["@recall/client"]).toMatch(/^\^\d+\.\d+\.\d+$/);
    expect(JSON.stringify(manifest)).not.toContain("workspace:");
    expect(manifest.peerDependencies).toEqual(peers);
    expect(manifest.license).toBe("Apache-2.0");
    expect(manifest.exports["."]).toEqual({ types: "./dist/index.d.ts", default: "./dist/index.js" });
  },
  180_000,
);
