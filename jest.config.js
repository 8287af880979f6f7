/** Tests sit next to the code they test (`*.test.ts`); they use the real Postgres and Redis. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/apps", "<rootDir>/packages", "<rootDir>/infra", "<rootDir>/bench"],
  testMatch: ["**/*.test.ts"],
  // The fault-injection tests (`*.faults.test.ts`) run on their own: `pnpm test:faults`; the replica's, `pnpm test:replica`.
  // The release tarballs installed with npm from the registry (`*.release.test.ts`): `pnpm test:release`.
  testPathIgnorePatterns: ["/node_modules/", "\\.faults\\.test\\.ts$", "\\.replica\\.test\\.ts$", "\\.release\\.test\\.ts$"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/tsconfig.base.json", diagnostics: false }],
  },
  // packages/client is ESM source: its relative imports name the emitted .js file, which is the .ts one here.
  // Inside the workspace @recall/client is its source (its package.json exports the dist/ that `npm pack` builds).
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1", "^@recall/client$": "<rootDir>/packages/client/src/index.ts" },
  // The longest files first, also on a fresh clone (infra/test-sequencer.js).
  testSequencer: "<rootDir>/infra/test-sequencer.js",
  globalSetup: "<rootDir>/packages/test-support/src/global-setup.ts",
  globalTeardown: "<rootDir>/packages/test-support/src/global-teardown.ts",
  testTimeout: 60_000,
  maxWorkers: 2,
};
