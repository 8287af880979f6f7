// Guards /query's retrieval quality on the shared LoCoMo conversations (docs/performance.md,
// bench:recall): each conversation's turns go straight into a test database (the speaker,
// the session's date as occurred_at; no extraction, so no facts), every QA question of
// categories 1–4 is ranked by searchMemory, the entry point /query calls, and by the
// bench's BM25 over the same raw turns. The test fails when /query's evidence hit@10
// falls below FLOOR times the BM25's. Skips, saying so, when the data is absent.
import fs from "node:fs";
import { createDb, type Db } from "@recall/db";
import { createTestDatabase, type TestDatabase } from "@recall/test-support";
import { readRecallData, type RecallData } from "../../../../../bench/recall/recall-data";
import { hit10AgainstBm25, type StoredConversation } from "../../../../../bench/recall/recall-guard";
import { defaultLocomoDir } from "../../../../../bench/shared/gate-locomo";
import { scopeSetIdOf } from "../../core/scope-sets";

const LOCOMO = defaultLocomoDir();
/** The ratio reached here when the ranking was last tuned (issue 30: 617 / 460 = 1.341), less 0.05. */
const FLOOR = 1.29;
const SCOPE = ["org=locomo"];

const present = fs.existsSync(LOCOMO);
if (!present) console.log(`search-recall.test: no LoCoMo data at ${LOCOMO}; the retrieval guard is skipped.`);

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  if (!present) return;
  database = await createTestDatabase();
  // A fixture spanning five contexts: written and read as the tests of this package do, outside any one tenant.
  db = createDb({ databaseUrl: database.url, poolMax: 4, unscoped: "bypass" });
});

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

/** One context per conversation, one session per LoCoMo session; turn ids by dialogue id. */
async function store(data: RecallData): Promise<Map<string, StoredConversation>> {
  const stored = new Map<string, StoredConversation>();
  for (const c of data.conversations) {
    const contextId = (await db.context.create({ data: { name: c.file } })).id;
    const sessions = new Map<string, string>();
    const diaIds = new Map<string, string>();
    const scopeSetId = await scopeSetIdOf(db, contextId, SCOPE);
    const rows = [];
    for (const [seq, t] of c.turns.entries()) {
      const session = t.diaId.split(":")[0]!;
      if (!sessions.has(session)) sessions.set(session, (await db.session.create({ data: { contextId } })).id);
      const row = { contextId, sessionId: sessions.get(session)!, seq, role: "user", speaker: t.speaker, content: t.text };
      rows.push({ ...row, scopeSetId, occurredAt: t.referenceTime, traceId: "locomo" });
    }
    const created = await db.turn.createManyAndReturn({ data: rows, select: { id: true, seq: true } });
    for (const r of created) diaIds.set(r.id, c.turns[r.seq]!.diaId);
    stored.set(c.file, { contextId, diaIds });
  }
  return stored;
}

(present ? it : it.skip)(
  "hit@10 of /query's ranking stays at least FLOOR times a BM25 over the raw turns",
  async () => {
    const data = readRecallData(LOCOMO);
    const stored = await store(data);
    const { ours, theirs } = await hit10AgainstBm25(db, data, stored, SCOPE);
    console.log(`search-recall.test: hit@10 ${ours} vs BM25 ${theirs} of ${data.questions.length} (${(ours / theirs).toFixed(3)}x)`);
    expect(ours / theirs).toBeGreaterThanOrEqual(FLOOR);
  },
  600_000,
);
