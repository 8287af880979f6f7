// The export's lines: a header, each row as its kind's fields in order, kinds in their order, an end line that counts
// them; filters; and an erasure committed mid-export ending it with an error line.
import { randomUUID } from "node:crypto";
import { eachTestInNewContext, exportLines, sampleMemory, type MemoryFixture } from "../testing/memory-fixture";
import { exportContext } from "./export";
import { EXPORT_FORMAT, EXPORT_FORMAT_VERSION, fieldOf, KIND_BY_NAME, KINDS } from "./export-format";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const at = new Date(Date.UTC(2025, 0, 1, 9));

test("a header, then every row as its kind's fields in order, kinds in their order, then an end line counting them", async () => {
  await sampleMemory(f, at);

  const lines = await exportLines(f);

  const header = lines[0]!;
  expect(header).toEqual({
    kind: "header",
    format: EXPORT_FORMAT,
    version: EXPORT_FORMAT_VERSION,
    context_id: f.contextId,
    exported_at: expect.any(String),
    filters: { scope: null, since: null, until: null },
    original_bytes: "omitted",
  });
  const rows = lines.slice(1, -1);
  for (const row of rows) {
    const spec = KIND_BY_NAME.get(row.kind as string)!;
    expect(Object.keys(row)).toEqual(["kind", ...spec.columns.map((c) => fieldOf(spec, c))]);
  }
  const order = rows.map((r) => KINDS.findIndex((k) => k.kind === r.kind));
  expect(order).toEqual([...order].sort((a, b) => a - b));
  const counted: Record<string, number> = Object.fromEntries(KINDS.map((k) => [k.kind, 0]));
  for (const row of rows) counted[row.kind as string]! += 1;
  expect(lines[lines.length - 1]).toEqual({ kind: "end", counts: counted });
  // The sample holds every kind but a source, a fact write and an uncertainty.
  expect(Object.keys(counted).filter((k) => counted[k] === 0)).toEqual(["fact_write", "source", "uncertainty"]);
});

test("candidates go only when committed or reviewed; reviews go in holding order with every status", async () => {
  const { held } = await sampleMemory(f, at);
  // An extracted candidate neither committed nor held stays behind.
  const unreviewed = await f.db.knowledgeCandidate.create({
    data: {
      contextId: f.contextId,
      workItemId: randomUUID(),
      subjectType: "turn",
      subjectId: held.id,
      ordinal: 9,
      kind: "entity",
      payload: {},
      stage: "fast",
    },
  });

  const lines = await exportLines(f);

  const exported = lines.filter((l) => l.kind === "candidate").map((l) => l.id);
  const expected = await f.db.knowledgeCandidate.findMany({
    where: { contextId: f.contextId, OR: [{ status: "committed" }, { review: { isNot: null } }] },
    orderBy: { id: "asc" },
  });
  expect(exported).toEqual(expected.map((c) => c.id));
  expect(exported).not.toContain(unreviewed.id);
  expect(expected.filter((c) => c.subjectId === held.id).map((c) => c.status)).toEqual(
    expect.arrayContaining(["pending_review", "rejected"]),
  );
  const reviews = await f.db.review.findMany({ where: { contextId: f.contextId }, orderBy: { seq: "asc" } });
  expect(lines.filter((l) => l.kind === "review").map((l) => [l.id, l.status, l.review_kind])).toEqual(
    reviews.map((r) => [r.id, r.status, r.kind]),
  );
});

test("a scope filter exports only what a reader in that scope sees; a time range only rows of that time", async () => {
  const { turn, promoted, document } = await sampleMemory(f, at);

  const bob = await exportLines(f, { scope: ["user=bob"] });
  const turns = (lines: Record<string, unknown>[]) => lines.filter((l) => l.kind === "turn").map((l) => l.id);
  expect(turns(bob)).not.toContain(turn.id);
  expect(bob.filter((l) => l.kind === "document").map((l) => l.id)).toEqual([document.id]);
  expect(bob.filter((l) => l.kind === "attribute").map((l) => l.value)).toEqual(["CFO"]);
  expect(bob[0]!.filters).toEqual({ scope: ["user=bob"], since: null, until: null });

  const alice = await exportLines(f, { scope: ["user=alice"] });
  expect(turns(alice)).toEqual(expect.arrayContaining([turn.id, promoted.id]));
  // A session goes with the turns a reader sees: Alice's own, and the two unscoped turns'.
  const sessions = (lines: Record<string, unknown>[]) => lines.filter((l) => l.kind === "session").map((l) => l.id);
  expect(sessions(alice)).toHaveLength(3);
  expect(sessions(alice)).toContain(turn.sessionId);
  expect(sessions(bob)).toHaveLength(2);
  expect(sessions(bob)).not.toContain(turn.sessionId);

  const { createdAt } = await f.db.turn.findUniqueOrThrow({ where: { id: promoted.id } });
  const since = await exportLines(f, { since: createdAt });
  expect(turns(since)).toContain(promoted.id);
  expect(turns(since)).not.toContain(turn.id);
  expect(since.filter((l) => l.kind === "document")).toEqual([]);
});

test("an erasure committed while the export streams ends it with an error line naming the erasure", async () => {
  await sampleMemory(f, at);
  const erasureId = randomUUID();
  let text = "";
  let erased = false;

  await exportContext(f.db, f.contextId, {}, async (chunk) => {
    text += chunk;
    if (erased) return;
    erased = true;
    // Another connection's erasure, committed after the export's snapshot was taken.
    await f.db.erasure.create({
      data: { id: erasureId, contextId: f.contextId, kind: "inputs", request: {}, erased: {}, counts: {}, hash: "0" },
    });
  });

  const last = JSON.parse(text.trimEnd().split("\n").pop()!);
  expect(last).toMatchObject({ kind: "error", error: "erased_during_export", erasure_ids: [erasureId] });
  expect(text).not.toContain('"kind":"end"');
});
