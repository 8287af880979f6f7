// Loads the LoCoMo conversations with the service-level functions instead of HTTP:
// turns are stored as POST /turns stores them (rows in `turns`, in the conversation's
// scope), the heuristic stage runs in-process over each turn with the speaker's name,
// and each LoCoMo session's finished diffs are committed with writeFacts (validation,
// commit and truth maintenance, the same path as POST /facts). On 2 cores the real
// turn path (four queue hops per turn) takes several minutes for 2,760 turns.
import { randomBytes } from "node:crypto";
import { createDb, withTenant, type Db } from "@recall/db";
import { emptyDiff, type ExtractionDiff, type KnownEntity } from "@recall/contracts";
import { runHeuristics } from "@recall/heuristics";
import { writeFacts } from "@recall/memory";
import { directStages } from "@recall/pipeline";
import type { GateConversation, GateTurn } from "./gate-locomo";
import { scopeOf, type LoadSummary } from "./bench-load";

const THRESHOLD = 0.8;

export async function loadWithServices(databaseUrl: string, contextId: string, conversations: GateConversation[]): Promise<LoadSummary> {
  const started = Date.now();
  // writeFacts holds a connection for its stage attempt while its commit takes another: two per conversation loading at once.
  const db = createDb({ databaseUrl, poolMax: 2 * conversations.length + 2 });
  try {
    // One conversation at a time: on a busy machine, five at once can outlast writeFacts' transaction timeout.
    const results: LoadSummary[] = [];
    for (const c of conversations) results.push(await withTenant(contextId, () => loadConversation(db, contextId, c)));
    const sum = (key: keyof LoadSummary) => results.reduce((n, r) => n + r[key], 0);
    return { turns: sum("turns"), committed: sum("committed"), failed: sum("failed"), seconds: (Date.now() - started) / 1000 };
  } finally {
    await db.$disconnect();
  }
}

async function loadConversation(db: Db, contextId: string, conversation: GateConversation): Promise<LoadSummary> {
  const scope = scopeOf(conversation);
  const session = await db.session.create({ data: { contextId, metadata: { locomo: conversation.file } } });
  await db.turn.createMany({
    data: conversation.turns.map((t, i) => ({
      contextId,
      sessionId: session.id,
      seq: i + 1,
      role: "user",
      content: t.text,
      scope,
      traceId: randomBytes(16).toString("hex"),
    })),
  });
  const bySession = extractBySession(conversation);
  let committed = 0;
  let failed = 0;
  for (const diff of bySession.values()) {
    const result = await writeFacts(db, directStages(db), {
      contextId,
      scope,
      diff: forDirectWrite(diff),
      traceId: randomBytes(16).toString("hex"),
    });
    if (result.ok && result.outcome === "applied") committed++;
    else failed++;
  }
  return { turns: conversation.turns.length, committed, failed, seconds: 0 };
}

/** Runs the heuristic stage over every turn, growing the known entities as a session would; merges finished diffs per LoCoMo session. */
function extractBySession(conversation: GateConversation): Map<string, ExtractionDiff> {
  const known: KnownEntity[] = conversation.speakers.map((name, i) => ({ id: `speaker-${i}`, name, type: "person", aliases: [] }));
  const bySession = new Map<string, ExtractionDiff>();
  for (const turn of conversation.turns) {
    const outcome = runHeuristics(inputFor(turn, known), { threshold: THRESHOLD });
    if (!outcome.finished) continue;
    for (const e of outcome.diff.entities)
      if (!known.some((k) => k.name === e.name)) known.push({ id: e.name, name: e.name, type: e.type, aliases: [] });
    const session = turn.diaId.split(":")[0]!;
    bySession.set(session, merge(bySession.get(session) ?? emptyDiff(), outcome.diff));
  }
  return new Map(
    [...bySession].filter(([, d]) => d.entities.length + d.attributes.length + d.relations.length + d.instructions.length > 0),
  );
}

function inputFor(turn: GateTurn, knownEntities: KnownEntity[]) {
  return {
    text: turn.text,
    kind: "turn" as const,
    role: "user",
    speaker: turn.speaker,
    referenceTime: turn.referenceTime,
    knownEntities,
    knownAttributes: [],
    activeInstructions: [],
  };
}

function merge(a: ExtractionDiff, b: ExtractionDiff): ExtractionDiff {
  return {
    entities: [...a.entities, ...b.entities],
    attributes: [...a.attributes, ...b.attributes],
    relations: [...a.relations, ...b.relations],
    instructions: [...a.instructions, ...b.instructions],
    revocations: [],
    uncertainties: [...a.uncertainties, ...b.uncertainties],
  };
}

/** A direct write's evidence is its own statement text: keep each quote, drop the turn's byte offsets. */
function forDirectWrite(diff: ExtractionDiff) {
  const quoteOnly = <T extends { evidence?: { quote: string } }>(item: T) => ({
    ...item,
    evidence: item.evidence && { quote: item.evidence.quote },
  });
  return {
    entities: diff.entities.map(({ evidence: _e, ...entity }) => entity),
    attributes: diff.attributes.map(quoteOnly),
    relations: diff.relations.map(quoteOnly),
    instructions: diff.instructions.map(quoteOnly),
    uncertainties: diff.uncertainties,
  };
}
