/**
 * `pnpm test:cluster`: the end-to-end files that exercise the queues hardest, run against a
 * private three-node Redis Cluster that infra/test.ts starts (`--redis-cluster`) and removes:
 * every stage and retry path, windows and delayed jobs, the sweeper, queue metrics. The whole
 * e2e folder passes too (`pnpm test:suite --redis-cluster apps/api/src/e2e apps/worker/src/e2e`,
 * about 7 minutes on 2 cores); this selection keeps CI's step under 4.
 */
const base = require("./jest.config");

// Left to the plain run: turn-completion (Postgres notifications), documents-upload (its pipeline is
// memory-documents') and client-retries (the client's side of a proxy), which do nothing a cluster changes.
const api = ["pipeline", "turn-batches", "work-items", "idempotency", "provider-faults", "metrics", "deployments"];
const worker = ["memory-pipeline", "memory-documents", "abandoned-fact-write"];

module.exports = {
  ...base,
  testMatch: [`**/apps/api/src/e2e/{${api.join(",")}}.e2e.test.ts`, `**/apps/worker/src/e2e/{${worker.join(",")}}.e2e.test.ts`],
};
