// @ts-check
const js = require("@eslint/js");
const tseslint = require("typescript-eslint");
const globals = require("globals");

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
