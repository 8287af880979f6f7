// @ts-check
const js = require("@eslint/js");
const tseslint = require("typescript-eslint");
const globals = require("globals");
const importX = require("eslint-plugin-import-x");

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
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^@recall/[^/]+/src(/|$)",
              message: "Import the package's entry point (its package.json exports), not its files.",
            },
          ],
        },
      ],
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
    },
  },
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
