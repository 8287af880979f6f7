// What the retrieval guards measure (search-recall.test.ts without facts, facts-recall.test.ts with them): for every
// question, whether searchMemory (the entry point /query calls, with the default ranking) puts an evidence turn in
// its first ten, and whether the bench's BM25 over the same raw turns does.
import type { Db } from "@recall/db";
import { SEARCH_KINDS, searchMemory } from "@recall/memory";
import { bm25Index } from "./recall-bm25";
import type { RecallData } from "./recall-data";

/** A conversation as a guard stored it: its context, and each turn's dialogue id by turn id. */
export interface StoredConversation {
  contextId: string;
  diaIds: Map<string, string>;
}

export async function hit10AgainstBm25(
  db: Db,
  data: RecallData,
  stored: ReadonlyMap<string, StoredConversation>,
  scope: string[],
): Promise<{ ours: number; theirs: number }> {
  const bm25 = new Map(data.conversations.map((c) => [c.file, bm25Index(c.turns.map((t) => ({ id: t.diaId, text: t.text })))]));
  let [ours, theirs] = [0, 0];
  for (const q of data.questions) {
    const { contextId, diaIds } = stored.get(q.file)!;
    const input = { contextId, scope, query: q.question, limit: 10, kinds: SEARCH_KINDS, match: "any" as const };
    const found = (await searchMemory(db, input)).results.map((r) => diaIds.get(r.link.turn_id ?? ""));
    if (found.some((id) => id !== undefined && q.evidence.includes(id))) ours += 1;
    if (
      bm25
        .get(q.file)!
        .search(q.question, 10)
        .some((id) => q.evidence.includes(id))
    )
      theirs += 1;
  }
  return { ours, theirs };
}
