// A document's state is the one its webhook announces: `committed` once truth maintenance applied it,
// when document.committed fires, while embedding it (a later step of the same work item) is still
// running; embedding has its own field, and an embedding that fails for good does not make the
// document read `failed`.
import { startFakeLlmServer, startWebhookReceiver, waitFor, type FakeLlmServer, type WebhookReceiver } from "@recall/test-support";
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";

const EMPTY_DIFF = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };

let h: Harness;
let llm: FakeLlmServer;
let receiver: WebhookReceiver;
let api: ContextClient;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  llm.respondWith(() => ({ json: EMPTY_DIFF }));
  receiver = await startWebhookReceiver();
  h = await startHarness({
    RECALL_EMBEDDING_MODEL: "openai-compatible:embed-test",
    RECALL_FAST_MODEL: "openai-compatible:test-fast",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    LLM_TIMEOUT_MS: "20000",
    WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
    WEBHOOK_POLL_MS: "100",
  });
  api = contextClient(h.app, await createContext(h.app, "docs"));
  const hook = await api.post("/webhooks", { url: receiver.url, events: ["document.committed", "document.failed"] });
  expect(hook.status).toBe(201);
});

afterAll(async () => {
  await h?.close();
  await receiver?.close();
  await llm?.close();
});

const eventsFor = (type: string, documentId: string) =>
  receiver.received.filter((r) => r.body.type === type && r.body.data.document_id === documentId);
const status = async (documentId: string) => (await api.get(`/documents/${documentId}/status`)).body;

async function postDocument(text: string): Promise<string> {
  const posted = await api.post("/documents", { text, scope: ["org=acme"] });
  expect(posted.status).toBe(202);
  return posted.body.document_id;
}

test("a document reads committed once document.committed fires, while its embedding is still running", async () => {
  llm.embeddings.script({ delayMs: 5_000 });
  const id = await postDocument("# Ledger\n\nOsprey is the ledger service.");
  await waitFor(async () => eventsFor("document.committed", id)[0], { what: "document.committed" });
  expect(await status(id)).toMatchObject({ state: "committed", embedding: "pending" });

  const done = await waitFor(async () => ((await status(id)).embedding === "done" ? status(id) : undefined), { what: "embedded" });
  expect(done).toMatchObject({ state: "committed", embedding: "done" });
});

test("an embedding that fails for good is shown apart: the document stays committed, not failed", async () => {
  llm.embeddings.script({ status: 401, message: "bad key" });
  const id = await postDocument("# Gearbox\n\nThe gearbox tolerances drift in winter.");
  const failed = await waitFor(async () => ((await status(id)).embedding === "failed" ? status(id) : undefined), {
    what: "embedding failed",
  });
  expect(failed.state).toBe("committed");
  expect(failed.stages.find((s: { queue: string }) => s.queue === "truth_maintenance")).toMatchObject({ status: "dead" });
  expect(eventsFor("document.committed", id)).toHaveLength(1);
});
