// Every program in the README and docs/ is checked, so an example cannot drift from the clients:
// TypeScript blocks type-checked with `tsc --strict` as ES modules (top-level await), with
// @recall/client mapped to the workspace's package; Python blocks compiled. The runnable examples
// (marked `<!-- test: … -->`, run against a service by apps/api/src/e2e/doc-snippets.e2e.test.ts) must
// also be plain JavaScript, as they run from a `.mjs` file, and every example that talks to the
// service through a client must be one of them. A block that is a fragment, not a program, says
// so in its info string (```ts fragment) and is skipped.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { documentationCodeBlocks, type CodeBlock } from "@recall/test-support";

const REPO = path.resolve(__dirname, "..");
const TYPESCRIPT = new Set(["ts", "typescript"]);
const PYTHON = new Set(["python", "py"]);
const programs = documentationCodeBlocks(REPO).filter((b) => !b.flags.includes("fragment"));
const typescript = programs.filter((b) => TYPESCRIPT.has(b.language));
const python = programs.filter((b) => PYTHON.has(b.language));
const where = (b: CodeBlock) => `${b.file}:${b.line}`;

let work: string;
beforeAll(() => {
  // Inside the repository, so the examples' imports of node: modules find @types/node.
  mkdirSync(path.join(REPO, ".scratch"), { recursive: true });
  work = mkdtempSync(path.join(REPO, ".scratch/doc-code-blocks-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("the documentation has TypeScript and Python programs to check", () => {
  expect(typescript.map(where)).toEqual(expect.arrayContaining([expect.stringMatching(/^docs\/clients\.md:/)]));
  expect(python.map(where)).toEqual(expect.arrayContaining([expect.stringMatching(/^docs\/clients\.md:/)]));
});

test("every TypeScript block type-checks under tsc --strict as an ES module", () => {
  const files = typescript.map((b, i) => {
    const file = path.join(work, `block-${i}.mts`);
    // `export {}` makes a block without imports a module too, where top-level await is allowed.
    writeFileSync(file, `${b.code}\nexport {};\n`);
    return file;
  });
  writeFileSync(
    path.join(work, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        lib: ["ES2023", "DOM"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        skipLibCheck: true,
        types: ["node"],
        paths: Object.fromEntries(
          ["client", "ai-sdk", "langchain"].map((name) => [`@recall/${name}`, [path.join(REPO, `packages/${name}/src/index.ts`)]]),
        ),
      },
      files,
    }),
  );
  const run = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", work, "--pretty", "false"], { encoding: "utf8" });
  // Each error named at the Markdown line it comes from.
  const errors = run.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) =>
      line.replace(/^.*block-(\d+)\.mts\((\d+),\d+\)/, (_all, i: string, row: string) => {
        const block = typescript[Number(i)]!;
        return `${block.file}:${block.line + Number(row)}`;
      }),
    );
  expect(errors).toEqual([]);
  expect(run.status).toBe(0);
});

// The adapters' examples too: the release test runs them from an npm-installed project as `.mjs` files.
test("the runnable TypeScript examples are plain JavaScript too (node --check as .mjs)", () => {
  const runnable = typescript.filter((b) => b.test || b.integration);
  expect(runnable.filter((b) => b.integration).length).toBeGreaterThan(0);
  const failures = runnable.flatMap((b) => {
    const file = path.join(work, `${b.test?.name ?? b.integration}.mjs`);
    writeFileSync(file, b.code);
    const run = spawnSync(process.execPath, ["--check", file], { encoding: "utf8" });
    return run.status === 0 ? [] : [`${where(b)}: ${run.stderr.trim()}`];
  });
  expect(failures).toEqual([]);
});

test("every Python block compiles (python3 -m py_compile)", () => {
  const failures = python.flatMap((b, i) => {
    const file = path.join(work, `block_${i}.py`);
    writeFileSync(file, b.code);
    const run = spawnSync("python3", ["-I", "-m", "py_compile", file], { encoding: "utf8" });
    return run.status === 0 ? [] : [`${where(b)}: ${run.stderr.trim()}`];
  });
  expect(failures).toEqual([]);
});

test("every example that talks to the service through a client is run against one (marked <!-- test: … -->)", () => {
  const talks = programs.filter((b) => /@recall\/client|recall_client/.test(b.code));
  expect(talks.length).toBeGreaterThan(0);
  // The adapters' examples (`<!-- integration: … -->`) are run twice each by apps/api/src/e2e/integrations.e2e.test.ts.
  expect(talks.filter((b) => !b.test && !b.integration).map(where)).toEqual([]);
});
