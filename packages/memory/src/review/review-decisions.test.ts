// Deciding reviews: what approve, reject and an edit change, what each refuses, and the review commits they open.
import { transaction } from "@recall/db";
import {
  addDocument,
  addTurn,
  attribute,
  decide,
  eachTestInNewContext,
  heldIntroduction,
  ingestForReview,
  instruction,
  relation,
  type MemoryFixture,
} from "../testing/memory-fixture";
import { commitApprovedReviews, type ReviewCommitRef } from "./review-decisions";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const at = new Date(Date.UTC(2025, 0, 1, 9));

const heldTurn = (content?: string) => heldIntroduction(f, { at, content });

async function statuses(ids: readonly string[]) {
  const reviews = await f.db.review.findMany({ where: { id: { in: [...ids] } }, include: { candidate: true }, orderBy: { seq: "asc" } });
  return reviews.map((r) => [r.status, r.candidate.status]);
}

test("approving marks the reviews and candidates approved and opens one review commit per input, in holding order", async () => {
  const first = await heldTurn();
  const second = await heldTurn("I'm Alice, CTO at Acme. Still.");

  const outcome = await decide(f, { reviewIds: [...second.ids, ...first.ids], action: "approve", note: "checked" });

  expect(outcome).toMatchObject({ unchanged: [], refused: [], missing: [] });
  expect(new Set(outcome.decided)).toEqual(new Set([...first.ids, ...second.ids]));
  expect(outcome.opened.map((c) => c.subjectId)).toEqual([first.turn.id, second.turn.id]);
  expect(outcome.commits).toEqual(outcome.opened);
  expect(await statuses([...first.ids, ...second.ids])).toEqual(Array(4).fill(["approved", "approved"]));
  for (const [commit, input] of [
    [outcome.commits[0]!, first],
    [outcome.commits[1]!, second],
  ] as const) {
    expect(commit).toMatchObject({ contextId: f.contextId, subjectType: "turn" });
    const reviews = await f.db.review.findMany({ where: { commitId: commit.id } });
    expect(reviews.map((r) => r.id).sort()).toEqual([...input.ids].sort());
    expect(reviews.every((r) => r.note === "checked" && r.decidedAt instanceof Date)).toBe(true);
  }
  expect(await f.db.reviewCommit.count({ where: { contextId: f.contextId } })).toBe(2);
});

test("rejecting a turn's reviews marks them rejected and opens no commit", async () => {
  const { ids } = await heldTurn();

  const outcome = await decide(f, { reviewIds: ids, action: "reject" });

  expect(outcome).toMatchObject({ decided: ids, commits: [], opened: [] });
  expect(await statuses(ids)).toEqual([
    ["rejected", "rejected"],
    ["rejected", "rejected"],
  ]);
  expect(await f.db.reviewCommit.count({ where: { contextId: f.contextId } })).toBe(0);
});

test("the same decision again is unchanged; the opposite one, or any on a withdrawn review, is refused", async () => {
  const { ids } = await heldTurn();
  const [approved, rejected] = ids as [string, string];
  await decide(f, { reviewIds: [approved], action: "approve" });
  await decide(f, { reviewIds: [rejected], action: "reject" });

  expect(await decide(f, { reviewIds: [approved], action: "approve" })).toMatchObject({ decided: [], unchanged: [approved], opened: [] });
  expect(await decide(f, { reviewIds: [rejected], action: "reject" })).toMatchObject({ decided: [], unchanged: [rejected] });
  expect((await decide(f, { reviewIds: [approved], action: "reject" })).refused).toEqual([{ id: approved, status: "approved" }]);
  expect((await decide(f, { reviewIds: [rejected], action: "approve" })).refused).toEqual([{ id: rejected, status: "rejected" }]);
  await f.db.review.update({ where: { id: approved }, data: { status: "withdrawn" } });
  expect((await decide(f, { reviewIds: [approved], action: "approve" })).refused).toEqual([{ id: approved, status: "withdrawn" }]);
  expect(await statuses(ids)).toEqual([
    ["withdrawn", "approved"],
    ["rejected", "rejected"],
  ]);
});

test("a review id not of this context decides nothing at all", async () => {
  const { ids } = await heldTurn();
  const elsewhere = await f.db.context.create({ data: { name: "other" } });
  const foreign = (await heldIntroduction({ db: f.db, contextId: elsewhere.id }, { at })).ids[0]!;

  const outcome = await decide(f, { reviewIds: [...ids, foreign], action: "approve" });

  expect(outcome).toMatchObject({ decided: [], unchanged: [], refused: [], missing: [foreign], commits: [] });
  expect(await statuses([...ids, foreign])).toEqual(Array(3).fill(["pending", "pending_review"]));
});

describe("an edit", () => {
  test("commits the edited candidate, keeps its evidence and records each changed field's before and after", async () => {
    const { ids } = await heldTurn();
    const role = ids[0]!;

    await decide(f, { reviewIds: [role], action: "approve", edit: { value: "Chief Technology Officer", key: "role" } });

    const review = await f.db.review.findUniqueOrThrow({ where: { id: role }, include: { candidate: true } });
    expect(review.edit).toEqual({ value: { from: "CTO", to: "Chief Technology Officer" } });
    expect(review.candidate.payload).toMatchObject({
      entity: "Alice",
      key: "role",
      value: "Chief Technology Officer",
      evidence: { quote: "I'm Alice, CTO" },
    });
    expect([review.status, review.candidate.status]).toEqual(["approved", "approved"]);
  });

  test("with null removes an optional field", async () => {
    const turn = await addTurn(f, { content: "I was CTO in 2020.", at });
    const [held] = await ingestForReview(f, turn, {
      attributes: [attribute("Alice", "role", "CTO", "I was CTO in 2020", { valid_from: "2020-01-01T00:00:00Z" })],
    });

    await decide(f, { reviewIds: [held!.id], action: "approve", edit: { valid_from: null } });

    const review = await f.db.review.findUniqueOrThrow({ where: { id: held!.id }, include: { candidate: true } });
    expect(review.candidate.payload).not.toHaveProperty("valid_from");
    expect(review.edit).toEqual({ valid_from: { from: "2020-01-01T00:00:00Z", to: null } });
  });

  test.each([
    ["a field the kind does not edit", { colour: "red" }, /edit\.colour: a attribute review edits only entity, key, value/],
    ["the evidence", { evidence: "elsewhere" }, /edit\.evidence: a attribute review edits only/],
    ["a blank value", { value: "  " }, /edit\.value: must not be blank/],
    ["an entity named only by symbols", { entity: "!!!" }, /edit\.entity: must contain a letter or digit/],
    ["an entity named only by question marks", { entity: "???" }, /edit\.entity: must contain a letter or digit/],
    ["an entity named by a zero-width space", { entity: "\u200b" }, /edit\.entity: must contain a letter or digit/],
    ["a required field removed", { value: null }, /edit\.value/],
    [
      "validity that ends before it starts",
      { valid_from: "2024-02-01T00:00:00Z", valid_to: "2024-01-01T00:00:00Z" },
      /edit\.valid_to: must be after valid_from/,
    ],
  ])("of %s is refused, naming the field, and decides nothing", async (_name, edit, message) => {
    const { ids } = await heldTurn();
    const role = ids[0]!;

    await expect(decide(f, { reviewIds: [role], action: "approve", edit })).rejects.toThrow(message);

    expect(await statuses(ids)).toEqual(Array(2).fill(["pending", "pending_review"]));
    expect(await f.db.review.findUniqueOrThrow({ where: { id: role } })).toMatchObject({ edit: null, commitId: null });
  });

  test("applies to one review at a time", async () => {
    const { ids } = await heldTurn();
    await expect(decide(f, { reviewIds: ids, action: "approve", edit: { memory_category: "knowledge" } })).rejects.toThrow(
      /an edit applies to one review at a time/,
    );
    expect(await statuses(ids)).toEqual(Array(2).fill(["pending", "pending_review"]));
  });

  test("of an instruction edits its label and description only", async () => {
    const turn = await addTurn(f, { content: "Always respond in bullet points.", at });
    const [held] = await ingestForReview(f, turn, { instructions: [instruction("Bullets", "Always respond in bullet points")] });
    await expect(decide(f, { reviewIds: [held!.id], action: "approve", edit: { confidence: "1" } })).rejects.toThrow(
      /a instruction review edits only label, description/,
    );
    await decide(f, { reviewIds: [held!.id], action: "approve", edit: { label: "Bullet points" } });
    expect((await f.db.review.findUniqueOrThrow({ where: { id: held!.id } })).edit).toEqual({
      label: { from: "Bullets", to: "Bullet points" },
    });
  });

  test("on a review already approved is refused: the edit would be dropped unsaid", async () => {
    const { ids } = await heldTurn();
    const role = ids[0]!;
    await decide(f, { reviewIds: [role], action: "approve" });

    const again = await decide(f, { reviewIds: [role], action: "approve", edit: { value: "CEO" } });

    expect(again).toMatchObject({ decided: [], unchanged: [], refused: [{ id: role, status: "approved" }] });
    const review = await f.db.review.findUniqueOrThrow({ where: { id: role }, include: { candidate: true } });
    expect([review.edit, review.candidate.payload]).toEqual([null, expect.objectContaining({ value: "CTO" })]);
  });

  test("that changes nothing records no edit", async () => {
    const { ids } = await heldTurn();
    await decide(f, { reviewIds: [ids[0]!], action: "approve", edit: { value: "CTO" } });
    expect(await f.db.review.findUniqueOrThrow({ where: { id: ids[0]! } })).toMatchObject({ status: "approved", edit: null });
  });
});

describe("a new version of a document", () => {
  async function versions() {
    const text = "Alice Chen is the CTO of Acme.";
    const old = await addDocument(f, { text, at });
    const next = await addDocument(f, { text: "Alice Chen is the CEO of Acme.", at });
    await f.db.document.update({ where: { id: next.id }, data: { previousVersionId: old.id } });
    const reviews = await ingestForReview(f, next, {
      attributes: [attribute("Alice Chen", "role", "CEO", "Alice Chen is the CEO")],
      relations: [relation("Alice Chen", "works_at", "Acme", "organization", "CEO of Acme")],
    });
    return { next, ids: reviews.map((r) => r.id) };
  }

  test("whose last open review is rejected gets an empty review commit that retires the old version", async () => {
    const { next, ids } = await versions();

    expect((await decide(f, { reviewIds: [ids[0]!], action: "reject" })).opened).toEqual([]);
    const last = await decide(f, { reviewIds: [ids[1]!], action: "reject" });

    expect(last.opened).toEqual([expect.objectContaining({ subjectType: "document", subjectId: next.id })]);
    expect(await f.db.review.count({ where: { commitId: last.opened[0]!.id } })).toBe(0);
  });

  test("whose open reviews are still waiting to commit opens nothing when one is rejected", async () => {
    const { ids } = await versions();
    await decide(f, { reviewIds: [ids[0]!], action: "approve" });
    expect((await decide(f, { reviewIds: [ids[1]!], action: "reject" })).opened).toEqual([]);
  });
});

test("approved reviews without a commit (an import's) get one per input, the oldest `limit` at a time", async () => {
  const first = await heldTurn();
  const second = await heldTurn("I'm Alice, CTO at Acme. Still.");
  const all = [...first.ids, ...second.ids];
  await f.db.review.updateMany({ where: { id: { in: all } }, data: { status: "approved" } });
  const run = (limit: number) => {
    const opened: ReviewCommitRef[] = [];
    return transaction(f.db, async (tx) => ({
      ...(await commitApprovedReviews(tx, f.contextId, limit, async (_tx, c) => {
        opened.push(c);
      })),
      opened,
    }));
  };

  const page = await run(3);
  expect(page.reviews).toBe(3);
  expect(page.opened.map((c) => c.subjectId)).toEqual([first.turn.id, second.turn.id]);
  const rest = await run(3);
  expect(rest.reviews).toBe(1);
  expect(rest.opened.map((c) => c.subjectId)).toEqual([second.turn.id]);
  expect(await run(3)).toMatchObject({ reviews: 0, commits: [], opened: [] });
  expect(await f.db.review.count({ where: { id: { in: all }, commitId: null } })).toBe(0);
});
