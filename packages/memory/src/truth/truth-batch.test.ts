// The truth maintenance of a group's commits applied together (applyTruthMaintenanceMany: every lock, fact and open
// uncertainty read at once, then each commit in turn) leaves memory exactly as applying each after the other in the
// same transaction: supersession inside the group, a conflict a turn of the group clarifies, an extractor's
// uncertainty one turn resolves and the next finds resolved, many-valued keys left alone.
import { transaction } from "@recall/db";
import {
  addDocument,
  addTurn,
  attribute,
  commitSubject,
  ingest,
  newContext,
  stageCandidates,
  oneDatabaseForFile,
  validateStaged,
  workItem,
  type MemoryFixture,
} from "../testing/memory-fixture";
import { committedRefs } from "../write/commit-records";
import { applyTruthMaintenanceIn, applyTruthMaintenanceMany, type CommittedRefs } from "./truth-maintenance";

const db = oneDatabaseForFile();

const JAN = new Date("2025-01-10T09:00:00Z");
const MAR = new Date("2025-03-10T09:00:00Z");
const SINGLE = new Set(["role", "title"]);

/** Before the group: two documents disagree on Alice's role; a document leaves Bob's job title uncertain. */
async function knownBefore(f: MemoryFixture): Promise<void> {
  for (const [role, at] of [
    ["CTO", JAN],
    ["CEO", new Date(JAN.getTime() + 86_400_000)],
  ] as const) {
    const text = `Alice Chen is the ${role} of Acme.`;
    const doc = await addDocument(f, { text, at });
    await ingest(f, doc, { attributes: [attribute("Alice Chen", "role", role, text.slice(0, -1))] });
  }
  const memo = await addDocument(f, { text: "Bob joined; his job title is unclear.", at: JAN });
  await ingest(f, memo, { uncertainties: [{ about: "Bob's job title", reason: "not stated", entity: "Bob" }] });
}

const GROUP: [content: string, entity: string, key: string, value: string][] = [
  ["Actually Alice is CEO now.", "Alice Chen", "role", "CEO"],
  ["And then Alice became CFO.", "Alice Chen", "role", "CFO"],
  ["Bob is an engineer.", "Bob", "title", "engineer"],
  ["Bob became a manager.", "Bob", "title", "manager"],
  ["Carol likes tea.", "Carol", "likes", "tea"],
];

/** The group's turns (one session) committed, their truth maintenance not yet applied: each commit's record. */
async function committedGroup(f: MemoryFixture): Promise<CommittedRefs[]> {
  const session = (await f.db.session.create({ data: { contextId: f.contextId } })).id;
  const refs: CommittedRefs[] = [];
  for (const [i, [content, entity, key, value]] of GROUP.entries()) {
    const turn = await addTurn(f, { content, at: new Date(MAR.getTime() + i * 60_000), sessionId: session });
    await stageCandidates(f, turn, { attributes: [attribute(entity, key, value, content.slice(0, -1))] });
    await validateStaged(f, turn);
    await commitSubject(f, turn);
    const item = await workItem(f, turn, "commit_artifacts");
    refs.push((await committedRefs(f.db, item.id))!);
  }
  return refs;
}

async function snapshot(f: MemoryFixture) {
  const where = { contextId: f.contextId };
  const facts = await f.db.attribute.findMany({ where });
  const label = new Map(facts.map((a) => [a.id, `${a.key}=${a.value}@${a.validFrom.toISOString()}`]));
  for (const a of facts) label.set(a.assertionId, `assertion of ${label.get(a.id)}`);
  const named = (id: string | null) => (id ? (label.get(id) ?? "?") : "-");
  return {
    facts: facts.map((a) => `${label.get(a.id)} to ${a.validTo?.toISOString() ?? "-"} by ${named(a.supersededById)}`).sort(),
    supersessions: (await f.db.supersession.findMany({ where }))
      .map((s) => `${named(s.olderId)} -> ${named(s.newerId)} at ${s.validTo?.toISOString()} undone=${s.undoneAt !== null}`)
      .sort(),
    uncertainties: (await f.db.uncertainty.findMany({ where }))
      .map((u) => `${u.about} [${u.factIds.map(named).sort()}] resolved=${u.resolved} by ${named(u.resolvedBy)}`)
      .sort(),
  };
}

async function maintained(apply: (refs: CommittedRefs[]) => (tx: Parameters<typeof applyTruthMaintenanceIn>[0]) => Promise<unknown>) {
  const f = await newContext(db());
  await knownBefore(f);
  const refs = await committedGroup(f);
  await transaction(f.db, apply(refs));
  return snapshot(f);
}

test("a group's truth maintenance applied together leaves memory as each commit's applied in turn", async () => {
  const alone = await maintained((refs) => async (tx) => {
    for (const r of refs) await applyTruthMaintenanceIn(tx, r, { singleValued: SINGLE });
  });
  const together = await maintained(
    (refs) => (tx) =>
      applyTruthMaintenanceMany(
        tx,
        refs.map((r) => ({ refs: r, options: { singleValued: SINGLE } })),
      ),
  );
  expect(together).toEqual(alone);
  expect(alone.uncertainties).toEqual([
    expect.stringMatching(/^Bob's job title \[\] resolved=true by assertion of title=engineer/),
    expect.stringMatching(/^role of Alice Chen \[.+\] resolved=true by assertion of role=CEO@2025-03/),
  ]);
  expect(alone.facts).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^role=CEO@2025-03.* by role=CFO/),
      expect.stringMatching(/^title=engineer.* by title=manager/),
    ]),
  );
  expect(alone.facts).toEqual(expect.arrayContaining([expect.stringMatching(/^likes=tea@.* to - by -$/)]));
});
