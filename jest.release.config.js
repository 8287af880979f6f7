/**
 * `pnpm test:release`: the release tarballs (`pnpm release:pack`) installed with plain npm, from the npm registry, into a
 * project outside the repository, and the integration examples run from it against a service. Slow (a few minutes of
 * npm install) and needs the registry, so it runs on its own, in CI's release step.
 */
const base = require("./jest.config");

module.exports = {
  ...base,
  testMatch: ["**/*.release.test.ts"],
  testPathIgnorePatterns: ["/node_modules/"],
  testTimeout: 15 * 60_000,
  maxWorkers: 1,
};
