// A group's commits written together (prepareCommits, each commit into the batch, completeCommits) leave memory
// exactly as the same commits written one after another in the same transaction: entities found, created, upgraded
// and widened across the group's turns, contested and look-alike names, mentions, evidence, facts, instructions,
// uncertainties, a retracted turn's bare record, and each commit's record and announcement.
import { commitAnnouncer } from "@recall/pipeline";
import { transaction, type KnowledgeCandidate } from "@recall/db";
import {
  addTurn,
  attribute,
  ingest,
  instruction,
  relation,
  stageCandidates,
  oneDatabaseForFile,
  newContext,
  NO_PLAN,
  validateStaged,
  workItem,
  type DiffInput,
  type MemoryFixture,
  type TestSubject,
} from "../testing/memory-fixture";
import { commitPlanned, completeCommits, prepareCommits, type CommitSource } from "./commit";
import { scopeOf } from "../core/scope-sets";

const db = oneDatabaseForFile();

const AT = new Date("2026-03-02T10:00:00Z");
const announce = commitAnnouncer({ relayed: true });

function named(name: string, type: string, quote: string) {
  return { name, type, memory_category: "identity" as const, evidence: { quote } };
}

/** Memory known before the group: two Sams, Coco, and Acme shown to alice only. */
async function knownBefore(f: MemoryFixture): Promise<void> {
  const sams = await addTurn(f, { content: "Sam met Sam.", at: AT });
  await ingest(f, sams, { entities: [named("Sam", "person", "Sam")] });
  // A second Sam of the same type, as an import could leave: the name is contested from now on.
  await f.db.entity.create({
    data: { contextId: f.contextId, name: "Sam", identityKey: "sam", type: "person", memoryCategory: "identity" },
  });
  const coco = await addTurn(f, { content: "Coco is my dog.", at: AT });
  await ingest(f, coco, { entities: [named("Coco", "pet", "Coco")] });
  const acme = await addTurn(f, { content: "I work at Acme.", at: AT, scope: ["user=alice"] });
  await ingest(f, acme, { relations: [relation("Alice", "works_at", "Acme", "organization", "I work at Acme")] });
}

/** The group's turns, each with its diff; the last is retracted before the group commits. */
const GROUP: { content: string; scope?: string[]; diff: DiffInput }[] = [
  {
    content: "Jordan is great.",
    diff: { attributes: [attribute("Jordan", "opinion", "great", "Jordan is great", { entity_type: "topic" })] },
  },
  {
    content: "Jordan plays chess with Sam.",
    diff: {
      entities: [named("Jordan", "person", "Jordan")],
      relations: [relation("Jordan", "plays_with", "Sam", "person", "Jordan plays chess with Sam")],
    },
  },
  {
    content: "An apple a day.",
    diff: { attributes: [attribute("apple", "benefit", "health", "An apple a day", { entity_type: "food" })] },
  },
  {
    content: "Apple makes phones.",
    diff: { attributes: [attribute("Apple", "makes", "phones", "Apple makes phones", { entity_type: "organization" })] },
  },
  { content: "Сосо barked.", diff: { entities: [named("Сосо", "pet", "Сосо")] } },
  { content: "Acme hired Bob.", diff: { relations: [relation("Bob", "works_at", "Acme", "organization", "Acme hired Bob")] } },
  {
    content: "Always answer briefly. Not sure whether Bob is CTO.",
    diff: {
      instructions: [instruction("Brief", "Always answer briefly")],
      uncertainties: [{ about: "Bob's role", reason: "hedged", entity: "Bob", key: "role" }],
    },
  },
  { content: "Jordan is a chess coach.", diff: { attributes: [attribute("Jordan", "role", "chess coach", "Jordan is a chess coach")] } },
  { content: "Retracted words.", diff: { attributes: [attribute("Zed", "said", "words", "Retracted words")] } },
];

interface Staged {
  source: CommitSource;
  candidates: KnowledgeCandidate[];
}

/** Stages and validates the group's turns and retracts the last (pending: its commit has not run). */
async function stageGroup(f: MemoryFixture): Promise<Staged[]> {
  const session = (await f.db.session.create({ data: { contextId: f.contextId } })).id;
  const staged: Staged[] = [];
  for (const [i, turn] of GROUP.entries()) {
    const subject: TestSubject = await addTurn(f, {
      content: turn.content,
      at: new Date(AT.getTime() + i),
      scope: turn.scope,
      sessionId: session,
    });
    await stageCandidates(f, subject, turn.diff);
    await validateStaged(f, subject);
    const item = await workItem(f, subject, "commit_artifacts");
    const candidates = await f.db.knowledgeCandidate.findMany({
      where: { subjectId: subject.id, status: "valid" },
      orderBy: { ordinal: "asc" },
    });
    staged.push({
      source: { ...subject, subjectType: "turn", subjectId: subject.id, workItemId: item.id, nodeOffsets: new Map() },
      candidates,
    });
  }
  const last = staged.at(-1)!.source;
  await f.db.retraction.create({
    data: { contextId: f.contextId, sourceType: "turn", sourceId: last.subjectId, reason: "test", pending: true, summary: {} },
  });
  return staged;
}

/** What memory holds, ids replaced by what they name, in a stable order. */
async function snapshot(f: MemoryFixture) {
  const where = { contextId: f.contextId };
  const entities = await f.db.entity.findMany({ where, orderBy: [{ createdAt: "asc" }, { name: "asc" }, { type: "asc" }] });
  const label = new Map(entities.map((e, i) => [e.id, `${e.name}#${i}`]));
  const turns = await f.db.turn.findMany({ where, select: { id: true, content: true } });
  for (const t of turns) label.set(t.id, `turn "${t.content}"`);
  const unid = (text: string | null) =>
    text?.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => label.get(id) ?? "id");
  const candidates = await f.db.knowledgeCandidate.findMany({ where, select: { id: true, status: true, turnId: true, ordinal: true } });
  for (const c of candidates) label.set(c.id, `candidate ${c.ordinal} of ${label.get(c.turnId!)}`);
  const sorted = (rows: string[]) => rows.sort();
  return {
    entities: await Promise.all(
      entities.map(
        async (e) => `${label.get(e.id)} ${e.type} ${e.memoryCategory} [${e.aliases}] scope=${await scopeOf(f.db, e.scopeSetId)}`,
      ),
    ),
    mentions: sorted(
      (await f.db.entityMention.findMany({ where })).map((m) => `${label.get(m.entityId)} by ${label.get(m.candidateId ?? "") ?? "-"}`),
    ),
    assertions: sorted(
      (await f.db.assertion.findMany({ where })).map(
        (a) =>
          `${label.get(a.subjectEntityId)} ${a.predicate} ${label.get(a.objectEntityId ?? "") ?? a.objectLiteral} "${a.quote}" ${a.startByte}-${a.endByte} ${a.stage} from ${label.get(a.turnId ?? "")}`,
      ),
    ),
    attributes: sorted(
      (await f.db.attribute.findMany({ where })).map((a) => `${label.get(a.entityId)} ${a.key}=${a.value} ${a.validFrom.toISOString()}`),
    ),
    relations: sorted(
      (await f.db.relation.findMany({ where })).map(
        (r) => `${label.get(r.subjectId)} ${r.predicate} ${label.get(r.objectId)} ${r.validFrom.toISOString()}`,
      ),
    ),
    instructions: sorted(
      (await f.db.instruction.findMany({ where })).map(
        (i) => `${i.label}: ${i.description} "${i.quote}" from ${label.get(i.turnId ?? "")}`,
      ),
    ),
    uncertainties: sorted(
      (await f.db.uncertainty.findMany({ where })).map(
        (u) => `${unid(u.about)} / ${unid(u.reason)} on ${label.get(u.entityId ?? "") ?? "-"} from ${label.get(u.turnId ?? "")}`,
      ),
    ),
    candidates: sorted(candidates.map((c) => `${label.get(c.id)}: ${c.status}`)),
    records: sorted(
      (await f.db.commitRecord.findMany({ where })).map((r) => {
        const refs = r.refs as Record<string, unknown>;
        const counts = ["entityIds", "assertionIds", "attributeIds", "relationIds", "instructionIds", "uncertaintyIds"].map(
          (k) => `${k}=${(refs[k] as string[] | undefined)?.map((id) => label.get(id) ?? "fact").join(",") ?? ""}`,
        );
        return `${label.get(r.subjectId)} retracted=${r.retracted} ${counts.join(" ")}`;
      }),
    ),
    announced: sorted((await f.db.outboxEvent.findMany({ where })).map((o) => `${o.type} processed=${o.processedAt !== null}`)),
    retractionsPending: await f.db.retraction.count({ where: { ...where, pending: true } }),
  };
}

async function committedOneByOne(): Promise<Awaited<ReturnType<typeof snapshot>>> {
  const f = await newContext(db());
  await knownBefore(f);
  const staged = await stageGroup(f);
  await transaction(f.db, async (tx) => {
    for (const { source, candidates } of staged) await commitPlanned(tx, source, candidates, NO_PLAN, { announce });
  });
  return snapshot(f);
}

async function committedTogether(): Promise<Awaited<ReturnType<typeof snapshot>>> {
  const f = await newContext(db());
  await knownBefore(f);
  const staged = await stageGroup(f);
  await transaction(f.db, async (tx) => {
    const batch = await prepareCommits(tx, staged, announce);
    for (const { source, candidates } of staged) await commitPlanned(tx, source, candidates, NO_PLAN, { announce, batch });
    await completeCommits(tx, batch);
  });
  return snapshot(f);
}

test("a group's commits written together leave memory as the same commits written one after another", async () => {
  const alone = await committedOneByOne();
  const together = await committedTogether();
  expect(together).toEqual(alone);
  // The cases the group holds, as memory shows them.
  expect(alone.entities).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^Jordan#\d+ person /),
      expect.stringMatching(/^apple#\d+ food /),
      expect.stringMatching(/^Apple#\d+ organization /),
      expect.stringMatching(/^Сосо#\d+ pet /),
      expect.stringMatching(/^Acme#\d+ organization identity \[\] scope=$/),
    ]),
  );
  expect(alone.entities.filter((e) => e.startsWith("Jordan#"))).toHaveLength(1);
  expect(alone.entities.filter((e) => e.startsWith("Sam#"))).toHaveLength(3);
  expect(alone.uncertainties.some((u) => u.includes("fits 2 known entities"))).toBe(true);
  expect(alone.uncertainties.some((u) => u.includes("looks like Coco"))).toBe(true);
  expect(alone.records.find((r) => r.startsWith('turn "Retracted words."'))).toMatch(/retracted=true entityIds= /);
  expect(alone.retractionsPending).toBe(0);
});
