// The extract stage's split into nodes: once per document however often it runs, and a
// document that cannot be read as its format ends dead with class validation, saying why.
import { withTenant } from "@recall/db";
import { ensureWorkItem, enqueueWorkItem } from "@recall/pipeline";
import { buildPdf, waitFor } from "@recall/test-support";
import { ensureDocumentNodes } from "../services/document-nodes";
import { startWorkerHarness, type WorkerHarness } from "../testing/worker-harness";

let h: WorkerHarness;
let contextId: string;

beforeAll(async () => {
  h = await startWorkerHarness();
  contextId = (await h.db.context.create({ data: { name: "nodes" } })).id;
});
afterAll(() => h?.close());

/** As the extract stage runs it: in the document's context. */
const splitOnce = (documentId: string) => withTenant(contextId, () => ensureDocumentNodes(h.worker.deps, documentId));

async function storeDocument(data: { format: string; text?: string; original?: Buffer }) {
  return h.db.document.create({
    data: {
      contextId,
      text: data.text ?? "",
      format: data.format,
      original: data.original && new Uint8Array(data.original),
      contentHash: `h-${Math.random()}`,
      traceId: "a".repeat(32),
    },
  });
}

test("splitting is done once: concurrent and repeated runs leave one set of nodes", async () => {
  const doc = await storeDocument({ format: "markdown", text: "# A\n\nOne.\n\n## B\n\nTwo.\n" });
  await Promise.all([splitOnce(doc.id), splitOnce(doc.id)]);
  await splitOnce(doc.id);
  const nodes = await h.db.documentNode.findMany({ where: { documentId: doc.id }, orderBy: { ordinal: "asc" } });
  expect(nodes.map((n) => [n.ordinal, n.headingPath])).toEqual([
    [0, ["A"]],
    [1, ["A", "B"]],
  ]);
  expect((await h.db.document.findUniqueOrThrow({ where: { id: doc.id } })).parsedAt).not.toBeNull();
});

test("a PDF's extracted text replaces the empty text it was stored with", async () => {
  const doc = await storeDocument({ format: "pdf", original: buildPdf([["Page one."], ["Page two."]]) });
  await splitOnce(doc.id);
  expect((await h.db.document.findUniqueOrThrow({ where: { id: doc.id } })).text).toBe("Page one.\n\nPage two.");
});

test("a broken PDF fails its extract stage for good, with class validation and the reason", async () => {
  const doc = await storeDocument({ format: "pdf", original: Buffer.from("%PDF-1.7\nthis is not a PDF body") });
  const item = await ensureWorkItem(h.db, {
    contextId,
    queue: "extract_assertions",
    subjectType: "document",
    subjectId: doc.id,
    traceId: doc.traceId,
  });
  await enqueueWorkItem(h.worker.deps.queues, item);
  const dead = await waitFor(
    async () => {
      const row = await h.db.workItem.findUniqueOrThrow({ where: { id: item.id } });
      return row.status === "dead" || row.status === "succeeded" ? row : undefined;
    },
    { what: "the broken PDF's work item to end" },
  );
  expect(dead).toMatchObject({ status: "dead", errorClass: "validation", attempts: 1 });
  expect(dead.errorMessage).toMatch(/not a readable PDF/);
  expect(await h.db.documentNode.count({ where: { documentId: doc.id } })).toBe(0);
});
