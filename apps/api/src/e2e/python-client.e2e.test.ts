// The Python client (clients/python) against the real service: its own unittest suite, run by the
// machine's python3 in isolated mode (no site-packages, no PYTHONPATH: the standard library only),
// pointed at a Recall listening on a local port. The scripted model finds nothing, so what the
// Python tests see extracted is the heuristics' reading, as in client.e2e.test.ts.
import path from "node:path";
import { RecallClient } from "@recall/client";
import { runCommand, startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { listen, type Listening } from "../testing/listen";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

const PYTHON_CLIENT = path.resolve(__dirname, "../../../../clients/python");
const NO_FACTS = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };

let h: Harness;
let llm: FakeLlmServer;
let server: Listening;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  llm.respondWith(() => ({ json: NO_FACTS }));
  h = await startHarness({
    RECALL_FAST_MODEL: "openai-compatible:test-fast",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    // The Python suite's webhook receiver listens on loopback.
    WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
  });
  server = await listen(h.app);
});

afterAll(async () => {
  await server?.close();
  await h?.close();
  await llm?.close();
});

test("python3 -I -m unittest discover passes against the running service, none skipped", async () => {
  const created = await new RecallClient({ baseUrl: server.url, adminKey: ADMIN_KEY }).admin.contexts.create({ name: "python" });
  const run = await runCommand("python3", ["-I", "-m", "unittest", "discover", "-v"], {
    cwd: PYTHON_CLIENT,
    env: {
      PATH: process.env.PATH,
      RECALL_URL: server.url,
      RECALL_API_KEY: created.api_key,
      RECALL_CONTEXT_ID: created.context_id,
      // The review test makes its own context that holds candidates for review.
      RECALL_ADMIN_KEY: ADMIN_KEY,
    },
    timeoutMs: 120_000,
  });
  // unittest reports on stderr: one line per test, then "Ran N tests" and "OK".
  expect(run.stderr).toMatch(/^Ran \d+ tests? in/m);
  expect(run.stderr).toMatch(/^OK$/m);
  expect(run.stderr).not.toMatch(/skipped/);
  expect(run.stderr).toMatch(/test_session_turn_profile_query_provenance_history_and_retraction .* ok/);
  expect(run.stderr).toMatch(/test_webhooks_signed_turn_event_deliveries_redelivery_rotation .* ok/);
  expect(run.stderr).toMatch(/test_erasure_and_its_receipt .* ok/);
  expect(run.stderr).toMatch(/test_review_before_commit_list_approve_edited_reject_and_bulk .* ok/);
}, 180_000);
