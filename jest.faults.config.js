/**
 * `pnpm test:faults`: the long fault-injection tests (#12: worker crashes, Redis lost, Postgres
 * restarted, graceful shutdown, Redis Cluster). They start and kill their own processes and
 * private servers, so they run one file at a time in their own CI step. The large export/import test
 * (portability-large) runs here too: it measures its process's heap, which another file's leftovers in a
 * shared Jest worker would distort (and its forced collections then take seconds each).
 */
const base = require("./jest.config");

module.exports = {
  ...base,
  testMatch: ["**/*.faults.test.ts"],
  // The base config leaves these out; here they are the point.
  testPathIgnorePatterns: ["/node_modules/"],
  testTimeout: 15 * 60_000,
  maxWorkers: 1,
  passWithNoTests: true,
};
