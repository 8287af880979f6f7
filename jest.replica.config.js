/**
 * `pnpm test:replica`: reads on a streaming replica (docs/operating.md, "Read replicas"), against a private primary and
 * a hot standby of it that the test makes with the installed server binaries (initdb, pg_basebackup -R, pg_ctl).
 */
const base = require("./jest.config");

module.exports = {
  ...base,
  testMatch: ["**/*.replica.test.ts"],
  testPathIgnorePatterns: ["/node_modules/"],
  testTimeout: 10 * 60_000,
  maxWorkers: 1,
};
