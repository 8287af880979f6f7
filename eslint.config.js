// @ts-check
const js = require("@eslint/js");
const tseslint = require("typescript-eslint");
const globals = require("globals");
const importX = require("eslint-plugin-import-x");
const path = require("node:path");

// packages/memory in layers (docs/development.md): each folder imports only the folders listed for it, all below it.
const MEMORY = "./packages/memory/src";
const MEMORY_LAYERS = {
  core: [],
  entities: ["core"],
  truth: ["core"],
  read: ["core"],
  embeddings: ["core", "read"],
  write: ["core", "entities", "truth"],
  review: ["core", "entities", "truth", "read", "write"],
  retraction: ["core", "entities", "truth", "read", "write", "review"],
  erasure: ["core", "entities", "truth", "read", "write", "review", "retraction"],
  portability: ["core", "entities", "truth", "read", "write", "review", "retraction"],
};
const memoryZones = Object.entries(MEMORY_LAYERS).map(([layer, below]) => ({
  target: `${MEMORY}/${layer}`,
  from: MEMORY,
  except: [`./${layer}`, ...below.map((d) => `./${d}`)],
  message: `memory/${layer} imports only ${below.length ? below.join(", ") : "nothing else of memory"} (its layers below).`,
}));

// The workspace's packages in layers (docs/development.md "Layers"): the packages each one's own code may import. Tests,
// and the helpers beside them (`testing/` folders, `e2e/`), may import any package their package.json declares.
const BASE = ["config", "contracts", "db", "telemetry"];
const EXTRACTION = ["heuristics", "llm", "extraction"];
const PACKAGE_LAYERS = {
  contracts: [],
  client: [],
  config: ["contracts"],
  db: ["config", "contracts"],
  telemetry: ["config", "contracts"],
  "test-support": BASE,
  heuristics: ["contracts", "telemetry"],
  llm: ["contracts", "telemetry", "heuristics"],
  extraction: ["contracts", "telemetry", "heuristics", "llm"],
  pipeline: BASE,
  memory: [...BASE, "heuristics"],
  "ai-sdk": ["client"],
  langchain: ["client"],
  worker: [...BASE, ...EXTRACTION, "pipeline", "memory"],
  api: [...BASE, ...EXTRACTION, "pipeline", "memory"],
};
const folderOf = (name) => (name === "api" || name === "worker" ? `apps/${name}` : `packages/${name}`);
const TEST_FILES = ["**/*.test.ts", "**/testing/**", "**/e2e/**"];
// Another package is used through its entry points (its package.json "exports"), never by reaching into its files.
const ENTRY_POINTS_ONLY = {
  regex: "^@recall/[^/]+/src(/|$)",
  message: "Import the package's entry point (its package.json exports), not its files.",
};
const packageLayers = Object.entries(PACKAGE_LAYERS).map(([name, below]) => {
  const above = Object.keys(PACKAGE_LAYERS).filter((other) => other !== name && !below.includes(other));
  return {
    files: [`${folderOf(name)}/**/*.ts`],
    ignores: TEST_FILES,
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            ENTRY_POINTS_ONLY,
            {
              regex: `^@recall/(${above.join("|")})(/|$)`,
              message: `@recall/${name} imports only ${below.length ? below.map((p) => `@recall/${p}`).join(", ") : "no other package"} of the workspace (docs/development.md, Layers).`,
            },
          ],
        },
      ],
    },
  };
});
// Each package declares what it imports in its own package.json (devDependencies: its tests and their helpers only).
const declaredImports = Object.keys(PACKAGE_LAYERS).map((name) => ({
  files: [`${folderOf(name)}/**/*.ts`],
  rules: {
    "import-x/no-extraneous-dependencies": [
      "error",
      {
        packageDir: path.join(__dirname, folderOf(name)),
        devDependencies: TEST_FILES,
        peerDependencies: true,
        optionalDependencies: false,
        includeTypes: true,
      },
    ],
  },
}));

module.exports = tseslint.config(
  { ignores: ["**/node_modules/**", "packages/db/src/generated/**", ".data/**", "coverage/**", "**/dist/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-require-imports": "off",
      "no-constant-condition": ["error", { checkLoops: false }],
    },
  },
  {
    // Package boundaries: another package is used through its entry points (its package.json "exports"),
    // never by reaching into its files; and no module imports itself back through a cycle.
    files: ["**/*.ts"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [importX.createNodeResolver({ extensions: [".ts", ".js", ".json"] })],
    },
    rules: {
      "no-restricted-imports": ["error", { patterns: [ENTRY_POINTS_ONLY] }],
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
    },
  },
  ...packageLayers,
  ...declaredImports,
  {
    files: ["packages/memory/src/**/*.ts"],
    ignores: ["**/*.test.ts", "packages/memory/src/testing/**"],
    rules: { "import-x/no-restricted-paths": ["error", { zones: memoryZones }] },
  },
  {
    files: ["apps/*/src/**/*.ts", "packages/*/src/**/*.ts"],
    // Test helpers (apps/*/src/testing) start child processes with the parent's environment.
    ignores: ["packages/config/src/**", "**/*.test.ts", "packages/test-support/src/**", "apps/*/src/testing/**"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Only packages/config reads process.env; take a Config." },
      ],
    },
  },
);
