// Holding candidates for review in the commit, announcing it once, and how a review commit, a retraction and a new
// document version close what is held.
import { transaction } from "@recall/db";
import {
  addDocument,
  addTurn,
  attribute,
  decide,
  eachTestInNewContext,
  ingestForReview,
  relation,
  type MemoryFixture,
  type TestSubject,
} from "../testing/memory-fixture";
import { closeReviewCommit, holdForReview, withdrawReviews } from "./review-hold";
import { documentAwaitsReview } from "../review/review-versions";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const at = new Date(Date.UTC(2025, 0, 1, 9));
const TEXT = "I'm Alice, CTO at Acme. I love hiking.";
const DIFF = {
  entities: [{ name: "Acme", type: "organization", memory_category: "knowledge", evidence: { quote: "Acme" } }],
  attributes: [attribute("Alice", "role", "CTO", "I'm Alice, CTO")],
  relations: [relation("Alice", "likes", "hiking", "activity", "I love hiking", { memory_category: "context" })],
};

async function candidates(subject: TestSubject) {
  const rows = await f.db.knowledgeCandidate.findMany({
    where: { subjectId: subject.id },
    include: { review: true },
    orderBy: { ordinal: "asc" },
  });
  return rows.map((c) => [c.kind, c.status, c.review?.status ?? null]);
}

test("the rule's candidates are held pending review, each with one review in candidate order; the rest commit", async () => {
  const turn = await addTurn(f, { content: TEXT, at });

  const reviews = await ingestForReview(f, turn, DIFF, { categories: ["identity", "context"] });

  expect(await candidates(turn)).toEqual([
    ["entity", "committed", null],
    ["attribute", "pending_review", "pending"],
    ["relation", "pending_review", "pending"],
  ]);
  expect(reviews.map((r) => [r.kind, r.memoryCategory, r.subjectType, r.subjectId, r.sessionId])).toEqual([
    ["attribute", "identity", "turn", turn.id, turn.sessionId],
    ["relation", "context", "turn", turn.id, turn.sessionId],
  ]);
  expect(await f.db.entity.count({ where: { contextId: f.contextId, name: "Acme" } })).toBe(1);
  expect(await f.db.attribute.count({ where: { contextId: f.contextId } })).toBe(0);
  expect(await f.db.relation.count({ where: { contextId: f.contextId } })).toBe(0);
});

test("a commit that holds announces review.pending once, naming its input and how many wait; a second run holds nothing again", async () => {
  await f.db.webhook.create({ data: { contextId: f.contextId, url: "http://localhost/hook", events: ["review.pending"], secret: "s" } });
  const turn = await addTurn(f, { content: TEXT, at });
  const reviews = await ingestForReview(f, turn, DIFF);
  const item = await f.db.workItem.findFirstOrThrow({ where: { subjectId: turn.id, queue: "commit_artifacts" } });
  const source = { contextId: f.contextId, workItemId: item.id, subjectType: "turn", subjectId: turn.id, turnId: turn.id };

  const again = await transaction(f.db, (tx) =>
    holdForReview(
      tx,
      source,
      reviews.map((r) => r.candidateId),
    ),
  );

  expect(again).toBe(0);
  expect(await f.db.review.count({ where: { subjectId: turn.id } })).toBe(3);
  const events = await f.db.webhookEvent.findMany({ where: { contextId: f.contextId } });
  expect(events.map((e) => [e.type, e.data])).toEqual([
    ["review.pending", { subject_type: "turn", turn_id: turn.id, session_id: turn.sessionId, pending: 3 }],
  ]);
});

test("a commit that holds nothing opens no review and announces nothing", async () => {
  await f.db.webhook.create({ data: { contextId: f.contextId, url: "http://localhost/hook", events: ["review.pending"], secret: "s" } });
  const turn = await addTurn(f, { content: TEXT, at });

  expect(await ingestForReview(f, turn, DIFF, { kinds: ["instruction"] })).toEqual([]);
  expect(await f.db.webhookEvent.count({ where: { contextId: f.contextId } })).toBe(0);
});

describe("a review commit's approved reviews", () => {
  async function approvedCommit() {
    const turn = await addTurn(f, { content: TEXT, at });
    const [approved, rejected] = await ingestForReview(f, turn, DIFF);
    await decide(f, { reviewIds: [rejected!.id], action: "reject" });
    const { opened } = await decide(f, { reviewIds: [approved!.id], action: "approve" });
    return { turn, commit: opened[0]! };
  }

  test.each([
    ["committed", "approved", "once their commit is maintained"],
    ["withdrawn", "rejected", "when the commit found its input retracted"],
  ] as const)("end %s, their candidates %s, %s", async (outcome, candidate, _when) => {
    const { turn, commit } = await approvedCommit();
    await transaction(f.db, (tx) => closeReviewCommit(tx, commit.id, outcome));
    expect(await candidates(turn)).toEqual([
      ["entity", candidate, outcome],
      ["attribute", "rejected", "rejected"],
      ["relation", "pending_review", "pending"],
    ]);
    const closed = await f.db.review.findFirstOrThrow({ where: { status: outcome, subjectId: turn.id } });
    expect(closed.committedAt instanceof Date).toBe(outcome === "committed");
  });
});

test("a retraction withdraws its input's pending and approved reviews only", async () => {
  const turn = await addTurn(f, { content: TEXT, at });
  const [approved, rejected] = await ingestForReview(f, turn, DIFF);
  await decide(f, { reviewIds: [approved!.id], action: "approve" });
  await decide(f, { reviewIds: [rejected!.id], action: "reject" });
  const other = await addTurn(f, { content: TEXT, at });
  await ingestForReview(f, other, DIFF);

  expect(await transaction(f.db, (tx) => withdrawReviews(tx, f.contextId, turn.id))).toBe(2);

  expect(await candidates(turn)).toEqual([
    ["entity", "rejected", "withdrawn"],
    ["attribute", "rejected", "rejected"],
    ["relation", "rejected", "withdrawn"],
  ]);
  expect((await candidates(other)).map(([, , review]) => review)).toEqual(["pending", "pending", "pending"]);
  expect(await transaction(f.db, (tx) => withdrawReviews(tx, f.contextId, turn.id))).toBe(0);
});

test("a document awaits review while any of its reviews is pending or approved, not once all are decided", async () => {
  const doc = await addDocument(f, { text: TEXT, at });
  const [first, second, third] = await ingestForReview(f, doc, DIFF);
  const set = (id: string, status: string) => f.db.review.update({ where: { id }, data: { status } });

  expect(await documentAwaitsReview(f.db, doc.id)).toBe(true);
  await set(first!.id, "rejected");
  await set(second!.id, "committed");
  await set(third!.id, "approved");
  expect(await documentAwaitsReview(f.db, doc.id)).toBe(true);
  await set(third!.id, "withdrawn");
  expect(await documentAwaitsReview(f.db, doc.id)).toBe(false);
});
