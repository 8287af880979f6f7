// Guards /query's retrieval quality on the shared LoCoMo conversations with the facts a model writes (issue 43):
// the no-model guard (packages/memory/src/read/search/search-recall.test.ts) stores the raw turns only; this one
// also commits, for every annotated turn, what the stand-in model answers for it (standin-answer.ts: the
// annotators' observations as Recall's diff), through the same validation, commit and truth maintenance the
// workers run (memory's test fixture), a session's turns written together as the bulk import's workers write them. Every QA question of categories 1–4 is ranked by searchMemory with the
// defaults, and by the bench's BM25 over the same raw turns; the test fails when hit@10 falls below FLOOR times
// the BM25's, or when a name has more than 1.05 entities on average (twins across sessions). Skips, saying so, when
// the data is absent.
import fs from "node:fs";
import { randomUUID } from "node:crypto";
import { fromModelDiff } from "../../packages/extraction/src/model-output";
import { ingestGroup, startMemoryDatabase, type MemoryDatabase, type TestSubject } from "../../packages/memory/src/testing/memory-fixture";
import { scopeSetIdOf } from "../../packages/memory/src/core/scope-sets";
import { readRecallData } from "../recall/recall-data";
import { hit10AgainstBm25, type StoredConversation } from "../recall/recall-guard";
import { defaultLocomoDir } from "../shared/gate-locomo";
import { standinDiff } from "./standin-answer";
import { loadStandinIndex } from "./standin-data";

const LOCOMO = defaultLocomoDir();
/** The ratio reached when this guard was written (632 / 460 = 1.374, 1,227 facts), less 0.05. */
const FLOOR = 1.32;
const SCOPE = ["org=locomo"];

const present = fs.existsSync(LOCOMO);
if (!present) console.log(`facts-recall.test: no LoCoMo data at ${LOCOMO}; the retrieval guard with facts is skipped.`);

let database: MemoryDatabase;

beforeAll(async () => {
  if (present) database = await startMemoryDatabase();
});

afterAll(async () => {
  await database?.close();
});

(present ? it : it.skip)(
  "hit@10 of /query's ranking, with the stand-in's facts committed, stays at least FLOOR times a BM25 over the raw turns",
  async () => {
    const { db } = database;
    const data = readRecallData(LOCOMO);
    const standin = loadStandinIndex(LOCOMO);
    let facts = 0;
    // One context a conversation, its turns in one statement; its annotated turns then go through the memory path
    // in order (what is already known shapes the next diff), the conversations side by side.
    const stored = new Map<string, StoredConversation>();
    const store = async (c: (typeof data.conversations)[number]) => {
      const contextId = (await db.context.create({ data: { name: c.file } })).id;
      const scopeSetId = await scopeSetIdOf(db, contextId, SCOPE);
      const sessions = new Map<string, string>();
      for (const t of c.turns) {
        const session = t.diaId.split(":")[0]!;
        if (!sessions.has(session)) sessions.set(session, (await db.session.create({ data: { contextId } })).id);
      }
      const rows = c.turns.map((t, seq) => ({
        ...{ contextId, sessionId: sessions.get(t.diaId.split(":")[0]!)!, seq, role: "user", speaker: t.speaker, content: t.text },
        ...{ scopeSetId, occurredAt: t.referenceTime, traceId: "locomo" },
      }));
      const created = await db.turn.createManyAndReturn({ data: rows, select: { id: true, seq: true } });
      const diaIds = new Map(created.map((r) => [r.id, c.turns[r.seq]!.diaId]));
      stored.set(c.file, { contextId, diaIds });
      const known = new Map<string, string>();
      // A session's annotated turns are written together, as the bulk import's workers write a group's turns.
      const groups = new Map<string, { subject: TestSubject; diff: ReturnType<typeof fromModelDiff> }[]>();
      for (const { id, seq } of [...created].sort((a, b) => a.seq - b.seq)) {
        const t = c.turns[seq]!;
        const annotated = standin.find({ text: t.text, speaker: t.speaker, when: t.referenceTime });
        if (!annotated || annotated.file !== c.file || annotated.annotations.length === 0) continue;
        // The entities committed so far keep their types, as a model told of them in its prompt would.
        const diff = standinDiff(annotated, known);
        for (const e of diff.entities) known.set(e.name.toLowerCase(), e.type);
        const subject: TestSubject = {
          ...{ type: "turn", id, turnId: id, contextId, text: t.text, scope: SCOPE },
          ...{ occurredAt: t.referenceTime, traceId: randomUUID().replace(/-/g, "") },
        };
        const session = t.diaId.split(":")[0]!;
        groups.set(session, [...(groups.get(session) ?? []), { subject, diff: fromModelDiff(diff) }]);
        facts += diff.attributes.length + diff.relations.length;
      }
      for (const group of groups.values()) await ingestGroup({ db, contextId }, group);
    };
    await Promise.all(data.conversations.map(store));
    const { ours, theirs } = await hit10AgainstBm25(db, data, stored, SCOPE);
    const ratio = ours / theirs;
    // One entity per real name across sessions: entities per distinct name (by context) stay within 1.05.
    const [names] = await db.$queryRaw<{ entities: number; names: number }[]>`
      SELECT count(*)::int AS entities, count(DISTINCT (context_id, identity_key))::int AS names FROM entities WHERE retracted_at IS NULL`;
    console.log(`facts-recall.test: ${names!.entities} entities for ${names!.names} distinct names`);
    expect(names!.entities / names!.names).toBeLessThanOrEqual(1.05);
    console.log(`facts-recall.test: ${facts} facts; hit@10 ${ours} vs BM25 ${theirs} of ${data.questions.length} (${ratio.toFixed(3)}x)`);
    expect(facts).toBeGreaterThan(1_000);
    expect(ratio).toBeGreaterThanOrEqual(FLOOR);
  },
  900_000,
);
