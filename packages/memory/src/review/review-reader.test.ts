// Reviews as readers see them: holding order, paging, filters, and spans into the whole document.
import { randomUUID } from "node:crypto";
import {
  addDocument,
  addTurn,
  attribute,
  eachTestInNewContext,
  heldIntroduction,
  ingestForReview,
  type MemoryFixture,
} from "../testing/memory-fixture";
import { ITEMS_BYTES, jsonBytes } from "../read/answer-bounds";
import { listReviews, pendingReviewIds, readReview } from "./review-reader";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const at = new Date(Date.UTC(2025, 0, 1, 9));

async function heldTurns(n: number) {
  const session = (await f.db.session.create({ data: { contextId: f.contextId } })).id;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(...(await heldIntroduction(f, { at, sessionId: session })).ids);
  return { session, ids };
}

test("listed in holding order, a page at a time, until no next page", async () => {
  const { ids } = await heldTurns(3);
  const seen: string[] = [];
  let after;
  for (let pages = 1; ; pages++) {
    const page = await listReviews(f.db, { contextId: f.contextId }, { after, limit: 4 });
    seen.push(...page.items.map((r) => r.id));
    if (!page.next) {
      expect(pages).toBe(2);
      break;
    }
    after = page.next;
  }
  expect(seen).toEqual(ids);
});

test("a page ends before 1 MB when its candidates are long (rows from before the caps), and the next page goes on", async () => {
  const { ids } = await heldTurns(12);
  // 60,000 characters on every held candidate: a page of 200 would be several megabytes.
  await f.db.$executeRaw`UPDATE knowledge_candidates SET payload = payload || jsonb_build_object('padding', repeat('x', 60000))
    WHERE context_id = ${f.contextId}::uuid`;
  const seen: string[] = [];
  let after;
  let pages = 0;
  do {
    const page = await listReviews(f.db, { contextId: f.contextId }, { after, limit: 200 });
    expect(jsonBytes(page.items)).toBeLessThanOrEqual(ITEMS_BYTES);
    seen.push(...page.items.map((r) => r.id));
    after = page.next ?? undefined;
    pages++;
  } while (after);
  expect(pages).toBeGreaterThan(1);
  expect(seen).toEqual(ids);
});

test("filters by status, kind, category and session, and never shows another context's reviews", async () => {
  const { session, ids } = await heldTurns(2);
  await f.db.review.update({ where: { id: ids[0]! }, data: { status: "rejected" } });
  const list = async (filter: object) =>
    (await listReviews(f.db, { contextId: f.contextId, ...filter }, { limit: 10 })).items.map((r) => r.id);

  expect(await list({ status: "pending" })).toEqual(ids.slice(1));
  expect(await list({ kind: "relation" })).toEqual([ids[1], ids[3]]);
  expect(await list({ category: "identity", status: "pending" })).toEqual([ids[2]]);
  expect(await list({ sessionId: session })).toEqual(ids);
  expect(await list({ sessionId: randomUUID() })).toEqual([]);
  expect((await listReviews(f.db, { contextId: randomUUID() }, { limit: 10 })).items).toEqual([]);
  expect(await readReview(f.db, randomUUID(), ids[0]!)).toBeUndefined();
});

test("a review shows its candidate, its quote and span, and its turn", async () => {
  const turn = await addTurn(f, { content: "Hello. I'm Alice, CTO at Acme.", at });
  const [held] = await ingestForReview(f, turn, { attributes: [attribute("Alice", "role", "CTO", "I'm Alice, CTO")] });

  expect(await readReview(f.db, f.contextId, held!.id)).toMatchObject({
    status: "pending",
    kind: "attribute",
    memory_category: "identity",
    candidate: { entity: "Alice", key: "role", value: "CTO" },
    quote: "I'm Alice, CTO",
    span: { start_byte: 7, end_byte: 21 },
    source: { type: "turn", turn_id: turn.id, session_id: turn.sessionId, document_id: null },
    edit: null,
  });
});

test("pendingReviewIds answers at most `limit` ids in holding order and counts every match", async () => {
  const { ids } = await heldTurns(3);
  await f.db.review.update({ where: { id: ids[0]! }, data: { status: "approved" } });
  expect(await pendingReviewIds(f.db, { contextId: f.contextId }, 2)).toEqual({ ids: ids.slice(1, 3), matching: 5 });
  expect(await pendingReviewIds(f.db, { contextId: f.contextId, kind: "relation" }, 10)).toEqual({
    ids: [ids[1], ids[3], ids[5]],
    matching: 3,
  });
});

test("a document's span is into the whole document, not the node the candidate was read from", async () => {
  const head = "# Team\n";
  const body = "Alice Chen is the CTO of Acme.";
  const doc = await addDocument(f, { text: head + body, at });
  const node = await f.db.documentNode.create({
    data: { documentId: doc.id, ordinal: 1, text: body, startByte: head.length, endByte: head.length + body.length },
  });
  const [held] = await ingestForReview(
    f,
    { ...doc, text: body, nodeId: node.id },
    {
      attributes: [attribute("Alice Chen", "role", "CTO", "the CTO of Acme")],
    },
  );

  expect(await readReview(f.db, f.contextId, held!.id)).toMatchObject({
    quote: "the CTO of Acme",
    span: { start_byte: head.length + 14, end_byte: head.length + 29 },
    source: { type: "document", turn_id: null, document_id: doc.id, document_node_id: node.id },
  });
});
