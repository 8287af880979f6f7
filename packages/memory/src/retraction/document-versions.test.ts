// Re-ingest by source: a new version retires the old one through delete-by-source.
import { readDocumentVersions, retirePreviousVersion } from "./document-versions";
import {
  addDocument,
  attribute,
  commitSubject,
  eachTestInNewContext,
  ingest,
  stageCandidates,
  validateStaged,
  type MemoryFixture,
} from "../testing/memory-fixture";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const V1 = "Alice Chen is the CTO of Acme. Alice Chen lives in Berlin.";
const V2 = "Alice Chen is the CTO of Acme.";

async function versions() {
  const source = await f.db.source.create({ data: { contextId: f.contextId, type: "document", externalId: "handbook" } });
  const v1 = await addDocument(f, { text: V1, at: new Date("2025-01-01"), sourceId: source.id });
  const v2 = await addDocument(f, { text: V2, at: new Date("2025-02-01"), sourceId: source.id });
  await f.db.document.update({ where: { id: v2.id }, data: { previousVersionId: v1.id } });
  return { v1, v2 };
}

async function live(key: string) {
  const rows = await f.db.attribute.findMany({ where: { contextId: f.contextId, key, retractedAt: null, validTo: null } });
  const assertions = await f.db.assertion.findMany({ where: { id: { in: rows.map((r) => r.assertionId) } } });
  return rows.map((r) => ({ value: r.value, documentId: assertions.find((a) => a.id === r.assertionId)?.documentId }));
}

test("facts only the old version stated end; what the new one states again lives on, evidenced by it", async () => {
  const { v1, v2 } = await versions();
  await ingest(f, v1, {
    attributes: [
      attribute("Alice Chen", "role", "CTO", "Alice Chen is the CTO"),
      attribute("Alice Chen", "lives_in", "Berlin", "Alice Chen lives in Berlin"),
    ],
  });
  await ingest(f, v2, { attributes: [attribute("Alice Chen", "role", "CTO", "Alice Chen is the CTO")] });

  const report = await retirePreviousVersion(f.db, { contextId: f.contextId, documentId: v2.id });
  expect(report?.attributeIds).toHaveLength(2);
  expect(await live("lives_in")).toEqual([]);
  const role = await live("role");
  expect(role.map((a) => [a.value, a.documentId])).toEqual([["CTO", v2.id]]);

  const again = await retirePreviousVersion(f.db, { contextId: f.contextId, documentId: v2.id });
  expect(again?.retractionId).toBeNull();
  const history = await readDocumentVersions(f.db, f.contextId, v1.id);
  expect(history?.versions.map((v) => [v.version, v.current, v.superseded_by, v.retraction_id !== null])).toEqual([
    [1, false, v2.id, true],
    [2, true, null, false],
  ]);
});

test("an old version not yet committed is stopped: its commit later writes nothing", async () => {
  const { v1, v2 } = await versions();
  await stageCandidates(f, v1, { attributes: [attribute("Alice Chen", "lives_in", "Berlin", "Alice Chen lives in Berlin")] });
  await validateStaged(f, v1);

  await retirePreviousVersion(f.db, { contextId: f.contextId, documentId: v2.id });
  const summary = await commitSubject(f, v1);
  expect(summary.retracted).toBe(true);
  expect(await live("lives_in")).toEqual([]);
});
